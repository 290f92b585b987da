import Foundation
import Testing
@testable import Vein
import VeinCore

/// `ModelContainer.sync` (docs/sync.md#from-an-app): an app's saves reach another replica, whose live
/// queries show them, and a relay that goes away is reported to the app, then recovered from.
@Suite struct ReplicaSyncTests {
    typealias F = LiveQueryFixture

    static func container(_ folder: String, _ name: String) throws -> ModelContainer {
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/\(name).vein"), appID: "com.example.chores",
                                               keyProvider: .keyFile("\(folder)/\(name).key"), keepsHistory: true)
        return try ModelContainer(for: Project.self, Chore.self, Setting.self, configurations: configuration)
    }

    @Test func savesReachTheOtherReplicaAndItsLiveQueries() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let a = try Self.container(folder, "a")
        try SyncSession.begin(a.store, relay: "\(folder)/relay", keyFile: "\(folder)/sync.key")
        _ = try SyncSession.join(relay: "\(folder)/relay", keyFile: "\(folder)/sync.key", to: "\(folder)/b.vein",
                                 protection: { _ in .encrypted(KeyOptions(keyFile: "\(folder)/b.key", environment: [:], keyring: nil)) })
        let b = try Self.container(folder, "b")
        try SyncSession.adopt(b.store, relay: try SyncRelay.open("\(folder)/relay"), keyFile: "\(folder)/sync.key")

        let errors = ErrorsHeard()
        let syncA = try a.sync(every: .milliseconds(100)) { errors.add($0) }
        let syncB = try b.sync(every: .milliseconds(100)) { errors.add($0) }
        defer { syncA.stop(); syncB.stop() }
        let open = LiveQuery(filter: #Predicate<Chore> { !$0.done }, sort: [SortDescriptor(\.title)], in: b.context, pollInterval: nil)

        try F.insert(["water plants"], into: a.context)
        #expect(F.eventually { open.results.map(\.title) == ["water plants"] }, "a's save, sent after it and merged by b's sync")
        try F.insert(["buy milk"], into: b.context)
        #expect(F.eventually { (try? a.context.fetch(FetchDescriptor<Chore>()).count) == 2 })

        // The relay goes away: the app hears it, and the sync goes on once it is back.
        try FileManager.default.moveItem(atPath: "\(folder)/relay", toPath: "\(folder)/away")
        #expect(F.eventually { syncB.lastError != nil })
        #expect(errors.first.map { String(describing: $0) }?.contains("relay") == true, "\(String(describing: errors.first))")
        try FileManager.default.moveItem(atPath: "\(folder)/away", toPath: "\(folder)/relay")
        try F.insert(["after the outage"], into: a.context)
        #expect(F.eventually { open.results.map(\.title) == ["after the outage", "buy milk", "water plants"] })
        #expect(syncB.lastError == nil)
        let round = try syncB.syncNow()
        #expect(round.sent == 0 && round.received == 0)
    }
}

/// Errors `onError` heard, from the sync's queue.
final class ErrorsHeard: @unchecked Sendable {  // `errors` behind `lock`
    private let lock = NSLock()
    private var errors: [any Error] = []
    func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}
