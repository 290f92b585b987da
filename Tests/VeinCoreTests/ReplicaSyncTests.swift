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
        #expect(round.sent == 0 && round.received == 0 && round.conflicts == 0)
    }

    /// An app prunes the relay and forgets a replica gone for good, as `vein sync prune` and `vein sync
    /// forget` do (docs/sync.md#pruning): a replica that never syncs again holds pruning back until it is
    /// forgotten, and a replica joined after the prune starts from the checkpoint with every commit.
    @Test func anAppPrunesTheRelayAndForgetsAReplicaGoneForGood() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let relay = "\(folder)/relay", syncKey = "\(folder)/sync.key"
        func join(_ name: String) throws -> ModelContainer {
            _ = try SyncSession.join(relay: relay, keyFile: syncKey, to: "\(folder)/\(name).vein",
                                     protection: { _ in .encrypted(KeyOptions(keyFile: "\(folder)/\(name).key", environment: [:], keyring: nil)) })
            let container = try Self.container(folder, name)
            try SyncSession.adopt(container.store, relay: try SyncRelay.open(relay), keyFile: syncKey)
            return container
        }
        let a = try Self.container(folder, "a")
        try SyncSession.begin(a.store, relay: relay, keyFile: syncKey)
        let b = try join("b"), c = try join("c")
        let syncA = try a.sync(every: .seconds(3600)), syncB = try b.sync(every: .seconds(3600)), syncC = try c.sync(every: .seconds(3600))
        defer { syncA.stop(); syncB.stop() }
        let gone = syncC.replicaID
        syncC.stop()  // c never syncs again
        #expect(Set([syncA.replicaID, syncB.replicaID, gone]).count == 3)

        for n in 1...3 {
            try F.insert(["chore \(n)"], into: a.context)
            try syncA.syncNow()
        }
        try syncB.prune()  // b merges a's segments and acknowledges them
        let held = try syncA.prune()
        #expect(held.publishedCheckpoint == 1)
        #expect(held.removedSegments == 0, "c merged none of them")
        #expect(held.waitingFor.keys.sorted() == [gone], "\(held.waitingFor)")

        #expect { try syncA.forget(replica: syncA.replicaID) } throws: { error in
            String(describing: error).contains("is this store's own replica: a replica forgets others, never itself")
        }
        try syncA.forget(replica: gone)
        let pruned = try syncA.prune()
        #expect(pruned.waitingFor.isEmpty, "\(pruned.waitingFor)")
        #expect(pruned.removedSegments > 0)

        let d = try join("d")
        #expect(try d.context.fetch(FetchDescriptor<Chore>()).map(\.title).sorted() == ["chore 1", "chore 2", "chore 3"])
        let syncD = try d.sync(every: .seconds(3600))
        defer { syncD.stop() }
        try F.insert(["from d"], into: d.context)
        try syncD.syncNow()
        try syncA.syncNow()
        #expect(try a.context.fetch(FetchDescriptor<Chore>()).count == 4)
    }

    /// A unique value saved on two replicas: both apps hear of the set-aside row once, neither fetches it,
    /// and resolving it on one replica reaches the other (docs/sync.md#unique-values).
    @Test func anAppHearsOfAUniqueValueConflictAndResolvesIt() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        func container(_ name: String) throws -> ModelContainer {
            try ModelContainer(for: Badge.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/\(name).vein"), appID: "com.example.badges",
                                                                                   keyProvider: .keyFile("\(folder)/\(name).key"), keepsHistory: true))
        }
        let a = try container("a")
        try SyncSession.begin(a.store, relay: "\(folder)/relay", keyFile: "\(folder)/sync.key")
        _ = try SyncSession.join(relay: "\(folder)/relay", keyFile: "\(folder)/sync.key", to: "\(folder)/b.vein",
                                 protection: { _ in .encrypted(KeyOptions(keyFile: "\(folder)/b.key", environment: [:], keyring: nil)) })
        let b = try container("b")
        try SyncSession.adopt(b.store, relay: try SyncRelay.open("\(folder)/relay"), keyFile: "\(folder)/sync.key")
        let heardA = ConflictsHeard(), heardB = ConflictsHeard()
        let syncA = try a.sync(every: .seconds(3600), onConflict: { heardA.add($0) })
        let syncB = try b.sync(every: .seconds(3600), onConflict: { heardB.add($0) })
        defer { syncA.stop(); syncB.stop() }

        a.context.insert(Badge(name: "gold", color: "yellow"))
        try a.context.save()
        b.context.insert(Badge(name: "gold", color: "orange"))
        try b.context.save()
        try syncA.syncNow(); try syncB.syncNow()
        let round = try syncA.syncNow()
        #expect(round.conflicts == 1)
        let setAside = try #require(try syncA.conflicts().first)
        #expect(setAside.fields == ["name"] && setAside.heldBy.count == 1)
        #expect(heardA.all == [setAside] && heardB.all == [setAside], "each app hears of it once")
        for context in [a.context, b.context] {
            #expect(try context.fetch(FetchDescriptor<Badge>()).map(\.color) == ["yellow"])
        }
        try syncB.resolve(setAside, keeping: .setAside)
        #expect(try b.context.fetch(FetchDescriptor<Badge>()).map(\.color) == ["orange"])
        try syncB.syncNow(); try syncA.syncNow()
        #expect(try a.context.fetch(FetchDescriptor<Badge>()).map(\.color) == ["orange"])
        #expect(try syncA.conflicts().isEmpty && syncB.conflicts().isEmpty)
    }
}

enum BadgeSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Badge.self]

    @Model
    final class Badge {
        @Attribute(.unique) var name: String
        var color: String

        init(name: String, color: String) {
            self.name = name
            self.color = color
        }
    }
}

typealias Badge = BadgeSchema.Badge

final class ConflictsHeard: @unchecked Sendable {
    private let lock = NSLock()
    private var conflicts: [ReplicaSync.Conflict] = []
    func add(_ new: [ReplicaSync.Conflict]) { lock.withLock { conflicts += new } }
    var all: [ReplicaSync.Conflict] { lock.withLock { conflicts } }
}

/// Through a PostgreSQL relay (a server of the test's own, `scripts/postgres-cluster`), a replica whose
/// interval never comes merges another's commit at once: it heard the relay's notification.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/lib/postgresql") || ProcessInfo.processInfo.environment["VEIN_POSTGRES_BIN"] != nil,
                "Debian's postgresql package is not installed"))
struct ReplicaSyncPostgresTests {
    @Test func aNotificationBringsTheOtherReplicasCommitAtOnce() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        var template = Array("/tmp/vein-pg-XXXXXX".utf8CString)
        let server = String(cString: try #require(mkdtemp(&template)))
        let cluster = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-cluster").path
        /// Spawned and reaped here: Foundation's Process.waitUntilExit was seen never to return once the
        /// script had started the server.
        func run(_ arguments: [String]) throws -> String {
            let output = "\(folder)/cluster-output"
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let argv = [cluster] + arguments
            let cArgv = argv.map { strdup($0) } + [nil]
            defer { cArgv.forEach { free($0) } }
            var pid: pid_t = 0
            try #require(posix_spawn(&pid, cluster, &actions, nil, cArgv, environ) == 0)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            try #require(status == 0, "postgres-cluster \(arguments): status \(status)")
            return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let relay = try run(["start", server])
        defer { _ = try? run(["stop", server]); try? FileManager.default.removeItem(atPath: server) }

        let a = try ReplicaSyncTests.container(folder, "a")
        try SyncSession.begin(a.store, relay: relay, keyFile: "\(folder)/sync.key")
        _ = try SyncSession.join(relay: relay, keyFile: "\(folder)/sync.key", to: "\(folder)/b.vein",
                                 protection: { _ in .encrypted(KeyOptions(keyFile: "\(folder)/b.key", environment: [:], keyring: nil)) })
        let b = try ReplicaSyncTests.container(folder, "b")
        try SyncSession.adopt(b.store, relay: try SyncRelay.open(relay), keyFile: "\(folder)/sync.key")
        let errors = ErrorsHeard()
        // b's interval never comes in this test: only the notification can start its round.
        let syncB = try b.sync(every: .seconds(3600)) { errors.add($0) }
        defer { syncB.stop() }
        usleep(300_000)  // b's listener is on the channel
        try F.insert(["heard of at once"], into: a.context)
        try #require(try SyncSession(store: a.store).push().segments == 1)
        let open = LiveQuery(filter: #Predicate<Chore> { !$0.done }, sort: [SortDescriptor(\.title)], in: b.context, pollInterval: nil)
        #expect(F.eventually { open.results.map(\.title) == ["heard of at once"] }, "b merged a's segment on its notification")
        #expect(errors.first == nil, "\(String(describing: errors.first))")

        // Integers of every width read back (a key epoch once went unread as a 4-byte integer).
        let rows = try PostgresConnection(relay).execute("SELECT (-2)::int2, 70000::int4, (-3)::int8, 2147483647::int4")
        #expect((0..<4).map { rows.int64(0, $0) } == [-2, 70000, -3, 2147483647])

        // A row written once is never written twice: a second key file of an epoch, a second segment of
        // a number, are each refused as what they mean (they once surfaced as the server's refusal).
        let session = try SyncSession(store: a.store)
        let relayName = session.relay.location
        let k2 = try BackupKey.random()
        try SyncKeyChain.publish(epoch: 2, new: k2, previous: session.keys.current, replica: session.replica, relay: session.relay)
        #expect(throws: SyncError.rotatedElsewhere(relayName, epoch: 2)) {
            try SyncKeyChain.publish(epoch: 2, new: try BackupKey.random(), previous: session.keys.current, replica: session.replica, relay: session.relay)
        }
        #expect(throws: SyncError.busy(relayName)) {
            try session.relay.backend.writing(segment: session.replica, 1) { path in try Data("not sealed".utf8).write(to: URL(fileURLWithPath: path)) }
        }
    }

    typealias F = LiveQueryFixture
}

/// Errors `onError` heard, from the sync's queue.
final class ErrorsHeard: @unchecked Sendable {  // `errors` behind `lock`
    private let lock = NSLock()
    private var errors: [any Error] = []
    func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}
