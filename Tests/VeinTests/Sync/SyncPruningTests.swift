import Foundation
import Testing
@testable import Vein

/// Pruning the relay (docs/sync.md#pruning): a replica removes its own segments once a checkpoint holds
/// them and every replica that wrote a segment has merged them; a new replica starts from the checkpoint,
/// with its stamps, and converges with the others; a replica whose segments were pruned past it says so.
@Suite struct SyncPruningTests {
    typealias Trio = SyncMigrationTests.Trio

    static func segments(_ t: Trio, _ i: Int) throws -> ClosedRange<UInt64>? {
        try SyncRelay.open(t.replicas.dir.path("relay")).backend.segmentRange(of: try t.session(i).replica)
    }

    static func insert(_ t: Trio, _ i: Int, _ title: String) throws {
        try t.execute(i, #"INSERT INTO "Post" ("_id", "title", "views") VALUES (?, ?, 1)"#, [.text(ULID.make().description), .text(title)])
    }

    @Test func aReplicaPrunesOnlyWhatEveryReplicaMergedAndANewOneStartsFromTheCheckpoint() throws {
        let t = try Trio()
        for n in 1...3 {
            try Self.insert(t, 0, "a\(n)")
            try t.session(0).push()
        }
        let sent = try #require(try Self.segments(t, 0)).upperBound
        // b merges a's segments and says so; c has merged none of them yet.
        try t.sync(1)
        try t.session(1).push(acknowledging: true)

        var pruning = try t.session(0).prune()
        #expect(pruning.published == 1 && pruning.checkpoint == 1)
        let c = try t.session(2).replica
        #expect(pruning.removed == 0 && pruning.waitingFor[c] != nil, "\(pruning)")
        #expect(try Self.segments(t, 0)?.lowerBound == 1)

        // c merges, and its next prune says so; then a removes every segment with its commits. The one
        // that says what a merged (its first prune's) stays until b merges it too.
        _ = try t.session(2).prune()
        pruning = try t.session(0).prune()
        #expect(pruning.removed == Int(sent) && pruning.prunedThrough == sent, "\(pruning)")
        #expect(try Self.segments(t, 0)?.lowerBound == sent + 1)

        // A new replica starts from the newest checkpoint and merges only what follows it.
        let d = try SyncReplicas.join(t.replicas.dir, "d.vein", keyFile: t.replicas.dir.path(t.replicas.keyFile))
        try Self.insert(t, 1, "b after the checkpoint")
        try t.sync(1)
        try t.replicas.session(d).push()
        try t.replicas.session(d).pull()
        for i in [0, 2, 1, 0] { try t.sync(i) }
        let export = try t.export(0)
        for i in [1, 2] { #expect(try t.export(i) == export, "replica \(i) differs") }
        #expect(try RandomWrites.export(d, in: t.replicas.dir) == export)
        #expect(export.contains("b after the checkpoint") && export.contains("a3"))

        // Older checkpoints go once a newer one is there.
        let relay = try SyncRelay.open(t.replicas.dir.path("relay"))
        for i in [1, 2, 0] { _ = try t.session(i).prune() }
        #expect(try relay.backend.snapshots(.checkpoint).count == 1)
    }

    /// A checkpoint holds the stamps merges compare with: a write older than one the checkpoint holds,
    /// arriving after a replica joined from it, loses there as it does everywhere else.
    @Test func aReplicaJoinedFromACheckpointComparesWithItsStamps() throws {
        let t = try Trio()
        // b writes first and keeps it; a writes the same field later and sends it.
        try t.execute(1, #"UPDATE "Post" SET "views" = 10 WHERE "_id" = ?"#, [.text(t.post)])
        Thread.sleep(forTimeInterval: 0.01)
        try t.execute(0, #"UPDATE "Post" SET "views" = 20 WHERE "_id" = ?"#, [.text(t.post)])
        try t.session(0).push()
        try Self.insert(t, 0, "second segment")
        try t.session(0).push()
        #expect(try t.session(0).prune().published == 1)

        let d = try SyncReplicas.join(t.replicas.dir, "d.vein", keyFile: t.replicas.dir.path(t.replicas.keyFile))
        #expect(try d.database.scalar(#"SELECT count(*) FROM "\#(SyncState.stamps)""#)?.int64 ?? 0 > 0)
        for i in [1, 0, 2] { try t.sync(i) }
        try t.replicas.session(d).pull()
        let export = try t.export(0)
        #expect(try RandomWrites.export(d, in: t.replicas.dir) == export)
        for i in [1, 2] { #expect(try t.export(i) == export, "replica \(i) differs") }
        #expect(try t.rows(0, #"SELECT "views" FROM "Post" WHERE "_id" = '\#(t.post)'"#) == ["20"])
    }

    /// A replica behind what was pruned (a copy of its store from before it merged, put back) says so and
    /// merges nothing past the gap; the replica as it was, which had merged, is what pruning waited for.
    @Test func aReplicaBehindWhatWasPrunedIsToldSo() throws {
        let replicas = try SyncReplicas(count: 3)
        let (a, b) = (replicas.a, replicas.b)
        for n in 1...3 {
            try replicas.insert(a, "a\(n)")
            try replicas.session(a).push()
        }
        let path = replicas.c.path
        try replicas.c.close()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: replicas.dir.path("old-c.vein") + suffix)
        }
        let c = try Store.open(path, keys: KeyOptions(keyring: nil))
        defer { try? c.close() }
        #expect(try replicas.session(a).prune().waitingFor.count == 2, "b and c, known from their joins, have merged nothing")
        for store in [b, c] { _ = try replicas.session(store).prune() }
        let pruning = try replicas.session(a).prune()
        #expect(pruning.removed > 0 && pruning.waitingFor.isEmpty, "\(pruning)")

        let old = try Store.open(replicas.dir.path("old-c.vein"), keys: KeyOptions(keyring: nil))
        defer { try? old.close() }
        let relay = replicas.dir.path("relay")
        #expect(throws: SyncError.prunedPast(relay, replica: try replicas.session(a).replica, sequence: 0)) {
            try replicas.session(old).pull()
        }
        #expect(try replicas.titles(old).isEmpty)
    }

    /// A replica that migrates after pruning still finds the first of its segments the barrier does not
    /// hold, and carries its commits across.
    @Test func aPrunedReplicaCrossesAMigration() throws {
        let t = try Trio()
        for n in 1...3 {
            try Self.insert(t, 1, "b\(n)")
            try t.session(1).push()
        }
        for i in [0, 2] { try t.sync(i); try t.session(i).push(acknowledging: true) }
        let pruning = try t.session(1).prune()
        #expect(pruning.removed > 0, "\(pruning)")
        // b sends one more segment, which a does not merge before it publishes the migration.
        try Self.insert(t, 1, "b after pruning")
        try t.session(1).push()
        try Self.insert(t, 1, "b unsent")
        try t.migrateLocally(0, try SyncMigrationTests.plan())
        #expect(try t.session(0).finishMigration(plan: try SyncMigrationTests.plan()) == .published(migration: 1))

        guard case .rebased(1, let carried) = try t.migrate(1) else { Issue.record("b did not start from the barrier"); return }
        #expect(carried == 2)
        #expect(try t.migrate(2) == .rebased(migration: 1, carried: 0))
        for i in [1, 0, 2, 1] { try t.sync(i) }
        let export = try t.export(0)
        for i in [1, 2] { #expect(try t.export(i) == export, "replica \(i) differs") }
        for title in ["b1", "b3", "b after pruning", "b unsent"] { #expect(export.contains(#""\#(title)""#), "\(title)") }
    }

    /// A replica that writes, syncs and prunes over and over keeps a bounded relay: its segments and the
    /// checkpoints do not grow with the rounds.
    @Test func theRelayStaysBoundedAcrossRounds() throws {
        let t = try Trio()
        var most = 0
        for round in 1...12 {
            for i in 0..<3 {
                try Self.insert(t, i, "r\(round) by \(i)")
                try t.sync(i)
            }
            for i in 0..<3 { _ = try t.session(i).prune() }
            let relay = try SyncRelay.open(t.replicas.dir.path("relay"))
            let held = try relay.backend.segmentRanges().values.map(\.count).reduce(0, +)
            most = max(most, held)
            #expect(try relay.backend.snapshots(.checkpoint).count <= 1)
        }
        #expect(most <= 9, "at most a few segments per replica stay, whatever the rounds: \(most)")
    }
}

extension SyncPruningTests {
    /// A replica that will not sync again is forgotten: pruning waits for it no more, and it is refused if
    /// it comes back.
    @Test func aForgottenReplicaHoldsNothingBackAndSyncsNoMore() throws {
        let replicas = try SyncReplicas(count: 3)
        let (a, b, c) = (replicas.a, replicas.b, replicas.c)
        for n in 1...3 {
            try replicas.insert(a, "a\(n)")
            try replicas.session(a).push()
        }
        _ = try replicas.session(b).prune()
        let cID = try replicas.session(c).replica
        #expect(try replicas.session(a).prune().waitingFor.keys.sorted() == [cID], "c, joined, has merged nothing")

        let relay = replicas.dir.path("relay")
        #expect(throws: SyncError.noSuchReplica(relay, replica: try replicas.session(a).replica, own: true)) {
            try replicas.session(a).forget(try replicas.session(a).replica)
        }
        #expect(throws: SyncError.noSuchReplica(relay, replica: "01JDQ8ZK3M8Q2V6Y0X9T4B7C1D", own: false)) {
            try replicas.session(a).forget("01JDQ8ZK3M8Q2V6Y0X9T4B7C1D")
        }
        try replicas.session(b).forget(cID)
        let pruning = try replicas.session(a).prune()
        #expect(pruning.waitingFor.isEmpty && pruning.removed == 3, "\(pruning)")
        #expect(try replicas.session(a).status().replicas.first { $0.replica == cID }?.forgotten == true)

        #expect(throws: SyncError.forgotten(relay, replica: cID)) { try replicas.session(c).pull() }
        #expect(throws: SyncError.forgotten(relay, replica: cID)) { try replicas.session(c).push() }
        #expect(throws: SyncError.forgotten(relay, replica: cID)) { try replicas.session(c).prepareMigration() }
        #expect(throws: SyncError.forgotten(relay, replica: cID)) { try replicas.session(c).rotateKey(to: replicas.dir.path("new.key")) }
        // A replica joined now takes its place, from the checkpoint.
        let d = try SyncReplicas.join(replicas.dir, "d.vein", keyFile: replicas.dir.path(replicas.keyFile))
        try replicas.session(d).pull()
        #expect(try replicas.titles(d) == ["a1", "a2", "a3"])
    }
}

extension SyncPruningTests {
    /// A replica still at the old schema acknowledges segments past what the migration's snapshot holds;
    /// pruning trusts that, so when it crosses the migration it does not ask for them again (they were of
    /// the old version, which their replica carried across).
    @Test func anAcknowledgementGivenBeforeAMigrationHoldsAfterIt() throws {
        let t = try Trio()
        let plan = try SyncMigrationTests.plan()
        try Self.insert(t, 1, "b1")
        try t.session(1).push()
        try t.session(0).prepareMigration()
        try t.migrateLocally(0, plan)
        // b sends a second segment; c merges both and says so, all before a publishes.
        try Self.insert(t, 1, "b2")
        try t.session(1).push()
        try t.session(2).pull()
        try t.session(2).push(acknowledging: true)
        #expect(try t.session(0).finishMigration(plan: plan) == .published(migration: 1))

        guard case .rebased = try t.migrate(1) else { Issue.record("b did not start from the barrier"); return }
        try t.sync(1)
        try t.sync(0)
        try t.session(0).push(acknowledging: true)
        let pruning = try t.session(1).prune()
        #expect(pruning.prunedThrough >= 2, "b's old-version segments that a and c merged or passed over: \(pruning)")

        guard case .rebased = try t.migrate(2) else { Issue.record("c did not start from the barrier"); return }
        for i in [2, 1, 0, 2] { try t.sync(i) }
        let export = try t.export(0)
        for i in [1, 2] { #expect(try t.export(i) == export, "replica \(i) differs") }
        for title in ["b1", "b2"] { #expect(export.contains(#""\#(title)""#), "\(title)") }
    }
}

extension SyncPruningTests {
    /// A checkpoint read while another replica published a newer one and pruned past it is found behind
    /// (a join then starts again from the newest); the newest is not.
    @Test func aCheckpointPrunedPastIsFoundBehind() throws {
        let t = try Trio()
        for n in 1...2 {
            try Self.insert(t, 0, "a\(n)")
            try t.session(0).push()
        }
        #expect(try t.session(0).prune().published == 1)
        let relay = try SyncRelay.open(t.replicas.dir.path("relay"))
        let first = try SyncSnapshotCopy.note(relay: relay, keys: t.session(0).keys, kind: .checkpoint, number: 1)
        #expect(try SyncSession.prunedPast(first, on: relay) == nil)
        for n in 3...5 {
            try Self.insert(t, 0, "a\(n)")
            try t.session(0).push()
        }
        for i in [1, 2] { _ = try t.session(i).prune() }
        let pruning = try t.session(0).prune()
        let a = try t.session(0).replica
        #expect(pruning.checkpoint > 1 && pruning.prunedThrough > (first.covers[a]?.sequence ?? 0) + 1, "\(pruning)")
        let gap = try #require(try SyncSession.prunedPast(first, on: relay))
        #expect(gap.replica == a)
        let newest = try #require(try t.session(0).newestCheckpoint())
        #expect(try SyncSession.prunedPast(newest, on: relay) == nil)
    }
}
