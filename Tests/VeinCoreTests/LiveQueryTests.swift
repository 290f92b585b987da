import Foundation
import Testing
@testable import Vein
@testable import VeinCore

/// Live queries refresh after saves that write their models: in this process (any context, any container
/// on the file) through the save announcement, in another process through `PRAGMA data_version`.
@Suite struct LiveQueryTests {
    typealias F = LiveQueryFixture

    @Test func refreshesAfterASaveInItsOwnContext() throws {
        let container = try F.container()
        let context = container.context
        try F.insert(["water plants"], into: context)
        let open = LiveQuery(filter: #Predicate<Chore> { !$0.done }, sort: [SortDescriptor(\.title)], in: context, pollInterval: nil)
        let observed = ResultsChangeCounter(open)
        #expect(open.results.map(\.title) == ["water plants"])

        try F.insert(["buy milk"], into: context)
        #expect(F.eventually { open.results.map(\.title) == ["buy milk", "water plants"] })
        #expect(observed.changes >= 1, "withObservationTracking saw results change")

        // A change that takes a row out of the predicate, saved: gone from the results.
        open.results.first { $0.title == "buy milk" }?.done = true
        try context.save()
        #expect(F.eventually { open.results.map(\.title) == ["water plants"] })
        #expect(open.error == nil)
    }

    @Test func refreshesAfterSavesOfOtherContextsAndContainersOnTheFile() throws {
        let container = try F.container()
        let open = LiveQuery(filter: #Predicate<Chore> { !$0.done }, sort: [SortDescriptor(\.title)], in: container.context,
                             pollInterval: nil)
        #expect(open.results.isEmpty)

        let background = container.newContext()
        try F.insert(["from another context"], into: background)
        #expect(F.eventually { open.results.map(\.title) == ["from another context"] })

        let second = try F.containerOnSameFile(as: container)
        let project = Project(name: "house")
        second.context.insert(project)
        try F.insert(["from another container"], into: second.context, project: project)
        #expect(F.eventually { open.results.map(\.title) == ["from another container", "from another context"] })

        // An update the live query's context holds the row of: the held object is read anew.
        let held = try #require(open.results.first { $0.title == "from another context" })
        let same = try #require(try background.fetch(Chore.self).first)
        same.title = "renamed elsewhere"
        try background.save()
        #expect(F.eventually { held.title == "renamed elsewhere" && open.results.contains { $0 === held } })

        // A cascade delete in the other container takes the project's chore out.
        second.context.delete(project)
        try second.context.save()
        #expect(F.eventually { open.results.map(\.title) == ["renamed elsewhere"] })
    }

    @Test func aLinkWrittenFromTheOtherSideRefreshesAQueryOfTheOwner() throws {
        let container = try F.container()
        let project = Project(name: "garden")
        container.context.insert(project)
        try container.context.save()
        let busy = LiveQuery(filter: #Predicate<Project> { !$0.chores.isEmpty }, in: container.newContext(), pollInterval: nil)
        #expect(busy.results.isEmpty)

        let writer = container.newContext()
        let there = try #require(try writer.fetch(Project.self).first)
        try F.insert(["mow"], into: writer, project: there)
        #expect(F.eventually { busy.results.map(\.name) == ["garden"] })
    }

    @Test func refreshesAfterAnotherProcessWrites() throws {
        let container = try F.container()
        try F.insert(["water plants", "buy milk"], into: container.context)
        let all = LiveQuery(sort: [SortDescriptor(\Chore.title)], in: container.context, pollInterval: .milliseconds(20))
        let observed = ResultsChangeCounter(all)
        #expect(all.results.map(\.title) == ["buy milk", "water plants"])

        let update = try VeinProcess.run(["query", container.store.path, #"update Chore where title == "buy milk" set title = "buy oat milk""#])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(F.eventually { all.results.map(\.title) == ["buy oat milk", "water plants"] })

        let delete = try VeinProcess.run(["query", container.store.path, #"delete Chore where title == "water plants""#])
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(F.eventually { all.results.map(\.title) == ["buy oat milk"] })
        #expect(observed.changes >= 2)
    }

    @Test func aSaveDoesNotWaitForTheRefreshItCauses() throws {
        let container = try F.container()
        let queryContext = container.newContext()
        let open = LiveQuery<Chore>(in: queryContext, pollInterval: nil)
        // Another thread holds the live query's context (a long fetch or save there): its refresh must wait,
        // the save that causes it must not.
        let holding = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0)
        Thread {
            queryContext.engine.lock.lock()
            holding.signal()
            letGo.wait()
            queryContext.engine.lock.unlock()
        }.start()
        holding.wait()
        let saved = DispatchSemaphore(value: 0)
        Thread {
            _ = try? F.insert(["while the query's context is busy"], into: container.newContext())
            saved.signal()
        }.start()
        let savedWhileBusy = saved.wait(timeout: .now() + 20) == .success
        letGo.signal()
        #expect(savedWhileBusy, "the save returned while the live query's context was held")
        if !savedWhileBusy { saved.wait() }
        #expect(F.eventually { open.results.map(\.title) == ["while the query's context is busy"] })
    }

    @Test func aSaveOfAnUnrelatedModelDoesNotRefresh() throws {
        let container = try F.container()
        try F.insert(["water plants"], into: container.context)
        let open = LiveQuery(filter: #Predicate<Chore> { !$0.done }, in: container.context, pollInterval: nil)
        #expect(open.watchedModels == ["Chore", "Project"])

        // Announcements are queued while the save runs: once the queue has run what was queued, a refresh
        // the save caused would have happened.
        container.context.insert(Setting(key: "theme", value: "dark"))
        try container.context.save()
        open.waitForQueuedRefreshes()
        let other = container.newContext()
        other.insert(Setting(key: "font", value: "serif"))
        try other.save()
        open.waitForQueuedRefreshes()
        #expect(open.publishCount == 0)
        // Another connection committed, which `data_version` shows: the poll fetches, finds the rows as they
        // were, and leaves `results` alone.
        open.pollOnce()
        #expect(open.publishCount == 0)

        // The counter does count: a save of the query's model refreshes it once.
        try F.insert(["sweep"], into: other)
        #expect(F.eventually { open.publishCount == 1 })
        #expect(open.results.map(\.title) == ["water plants", "sweep"])
    }

    @Test func releasingItStopsThePollerAndTheObserver() throws {
        let container = try F.container()
        let realPath = container.store.realPath
        let before = StoreChangeCenter.shared.observerCount(storeAt: realPath)
        var query: LiveQuery<Chore>? = LiveQuery(in: container.context, pollInterval: .milliseconds(5))
        weak var released = query
        let poller = try #require(query?.poller)
        #expect(StoreChangeCenter.shared.observerCount(storeAt: realPath) == before + 1)
        #expect(StoreChangeCenter.shared.rollbackObserverCount(of: container.context.engine) == 1)
        #expect(!poller.isCancelled)
        try F.insert(["keep it busy"], into: container.context)
        query = nil
        #expect(F.eventually { released == nil }, "nothing keeps a released live query alive")
        #expect(poller.isCancelled, "its timer is stopped")
        #expect(StoreChangeCenter.shared.observerCount(storeAt: realPath) == before)
        #expect(StoreChangeCenter.shared.rollbackObserverCount(of: container.context.engine) == 0)
    }

    @Test func aFailedRefreshSetsErrorAndKeepsResults() throws {
        let container = try F.container()
        try F.insert(["water plants"], into: container.context)
        let context = container.newContext()
        let all = LiveQuery<Chore>(in: context, pollInterval: nil)
        #expect(all.results.count == 1)
        // Another connection changes the schema under the context (as a migration would).
        let database = try #require(try container.store.openConnection())
        try database.execute("UPDATE _vein_meta SET value = 'changed' WHERE key = 'manifestSHA256'")
        all.refresh()
        #expect(all.error != nil)
        #expect(all.results.count == 1)
    }
}

/// The built `vein` binary as another process (`VEIN_BINARY`, or the debug build, as the end-to-end tests
/// find it), with no way to reach a keyring.
enum VeinProcess {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let binary = ProcessInfo.processInfo.environment["VEIN_BINARY"]
        ?? packageRoot.appendingPathComponent(".build/debug/vein").path

    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/vein-test-bus"
        environment.removeValue(forKey: "VEIN_KEY")
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
