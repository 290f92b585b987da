import Foundation
import Testing
@testable import Vein
@testable import VeinCore

/// What a live query shows is the committed state, whatever its context holds unsaved or rolls back, and
/// whichever order its fetches (and their failures) finish in.
extension LiveQueryTests {
    @Test func resultsAreTheCommittedRowsNotTheContextsUnsavedChanges() throws {
        let container = try F.container()
        let context = container.context
        let open = LiveQuery(sort: [SortDescriptor(\Chore.title)], in: context, pollInterval: nil)
        #expect(open.descriptor.includePendingChanges == false)
        context.insert(Chore(title: "unsaved"))
        // A save elsewhere refreshes the query: the unsaved insert of its own context stays out.
        try F.insert(["saved elsewhere"], into: container.newContext())
        open.waitForQueuedRefreshes()
        #expect(open.results.map(\.title) == ["saved elsewhere"])
        try context.save()
        #expect(F.eventually { open.results.map(\.title) == ["saved elsewhere", "unsaved"] })
    }

    @Test func aRollbackOfItsContextLeavesNoDetachedObjectInResults() throws {
        let container = try F.container()
        let context = container.context
        try F.insert(["water plants"], into: context)
        let open = LiveQuery(sort: [SortDescriptor(\Chore.title)], in: context, pollInterval: nil)
        let held = try #require(open.results.first)
        held.title = "changed, not saved"
        context.insert(Chore(title: "inserted, not saved"))
        context.rollback()

        // rollback() detached `held`; the live query holds a fresh instance of the row, before it returns.
        // (`#require`: reading a detached object's field would stop the process.)
        try #require(open.results.allSatisfy { $0._$backing.object?.state == .persisted }, "no detached object in results")
        #expect(!open.results.contains { $0 === held })
        #expect(open.results.map(\.title) == ["water plants"])
        // A setter on a result works (on a detached object it would stop the process).
        open.results.first?.done = true
        try context.save()
        let reader = container.newContext()
        #expect(try reader.fetch(Chore.self).map(\.done) == [true])

        // A rollback in another context, or of other models, does not refresh it.
        open.waitForQueuedRefreshes()  // the refresh the save above queued
        let count = open.publishCount
        let other = container.newContext()
        other.insert(Chore(title: "elsewhere, not saved"))
        other.rollback()
        context.insert(Setting(key: "theme", value: "dark"))
        context.rollback()
        open.waitForQueuedRefreshes()
        #expect(open.publishCount == count)
    }

    @Test func aSaveCommittedDuringTheFirstFetchIsNotMissed() throws {
        let container = try F.container()
        let writer = container.newContext()
        // Between the first fetch and its publication: a save, whose refresh runs (and is applied) first.
        let open = LiveQuery<Chore>(FetchDescriptor(), in: container.newContext(), pollInterval: nil) { query in
            _ = try? F.insert(["saved during the first fetch"], into: writer)
            query.waitForQueuedRefreshes()
        }
        open.waitForQueuedRefreshes()
        #expect(open.results.map(\.title) == ["saved during the first fetch"])
    }

    @Test func aRefreshInsideATransactionWaitsForItsEnd() throws {
        let container = try F.container()
        let context = container.context
        try F.insert(["committed"], into: context)
        let open = LiveQuery(sort: [SortDescriptor(\Chore.title)], in: context, pollInterval: nil)
        struct Abandon: Error {}
        var made: LiveQuery<Chore>?
        #expect(throws: Abandon.self) {
            try context.transaction {
                try F.insert(["saved in a transaction rolled back"], into: context)
                open.refresh()
                made = LiveQuery(sort: [SortDescriptor(\Chore.title)], in: context, pollInterval: nil)
                #expect(open.results.map(\.title) == ["committed"], "nothing uncommitted is shown")
                #expect(made?.results.isEmpty == true, "its first fetch waits too")
                throw Abandon()
            }
        }
        open.waitForQueuedRefreshes()
        made?.waitForQueuedRefreshes()
        #expect(open.results.map(\.title) == ["committed"])
        #expect(made?.results.map(\.title) == ["committed"], "fetched once the transaction ended")
    }

    @Test func anOlderFetchNeverReplacesANewerFailureOrANewerFailureNewerRows() throws {
        let container = try F.container()
        try F.insert(["water plants"], into: container.context)
        let all = LiveQuery<Chore>(in: container.newContext(), pollInterval: nil)
        let database = try #require(try container.store.openConnection())
        let sha = try #require(try database.scalar("SELECT value FROM _vein_meta WHERE key = 'manifestSHA256'")?.string)
        func changeSchema(_ value: String) throws {
            try database.execute("UPDATE _vein_meta SET value = '\(value)' WHERE key = 'manifestSHA256'")
        }

        // An older success finishing after a newer failure does not clear the failure.
        let olderSuccess = all.fetch()
        try changeSchema("changed")
        let newerFailure = all.fetch()
        all.publish(newerFailure, always: true)
        all.publish(olderSuccess, always: true)
        #expect(all.error != nil)

        // An older failure finishing after newer rows does not set `error` over them.
        let olderFailure = all.fetch()
        try changeSchema(sha)
        try F.insert(["buy milk"], into: container.context)
        let newerSuccess = all.fetch()
        all.publish(newerSuccess, always: true)
        all.publish(olderFailure, always: true)
        #expect(all.error == nil)
        #expect(all.results.count == 2)
    }

    @Test func aStoreFileReplacedByARenameSetsError() throws {
        let container = try F.container()
        try F.insert(["water plants"], into: container.context)
        let all = LiveQuery<Chore>(in: container.newContext(), pollInterval: nil)
        #expect(all.results.count == 1)
        // As a key rotation or a restore does: a new file renamed over the store's path.
        let path = container.store.realPath
        try FileManager.default.copyItem(atPath: path, toPath: path + ".new")
        #expect(rename(path + ".new", path) == 0)
        all.pollOnce()
        #expect(all.error as? LiveQueryError == .storeReplaced(container.store.path))
        #expect(all.results.count == 1, "results as they were")
        #expect("\(all.error!)".hasSuffix("was replaced or removed since this live query's context opened it; open the store again and make a new live query"))
    }
}
