import Foundation
import Testing
@testable import Vein

/// Pushing and pulling in the engine (docs/sync.md#crashes-and-concurrency): a push killed after sealing
/// its segment is finished by the next, not repeated; a copy of a replica's file pushing as the same
/// replica is refused; the log keeps what was not sent whatever its retention says.
@Suite struct SyncSessionTests {
    /// What a merged delete leaves is found from the gone rows, through indexes: no statement of `repair`
    /// reads a whole model or link table, so a pull's cost follows its changes, not the store's size.
    @Test func repairReachesReferencesThroughIndexes() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let manifest = try ManifestParser.parse(SyncConvergenceTests.manifestText, file: "sync.json5")
        _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: manifest, protection: .plaintext, keepsChangeLog: true)
        let store = try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))
        defer { try? store.close() }
        let merger = try SyncMerger(database: store.database, manifest: manifest)
        let statements = merger.repairStatements
        #expect(statements.contains { $0.hasPrefix("UPDATE") } && statements.contains { $0.hasPrefix("DELETE") }, "\(statements)")
        for sql in statements {
            let plan = try store.database.rows("EXPLAIN QUERY PLAN " + sql).compactMap { $0[3].string }
            // Every read of a table of the store is one key's seek (`(owner=?)`), never a scan or a range.
            let reads = plan.filter { ($0.hasPrefix("SCAN TABLE") || $0.hasPrefix("SEARCH TABLE")) && !$0.contains("_vein_sync_gone") }
            #expect(!reads.isEmpty && reads.allSatisfy { $0.hasPrefix("SEARCH TABLE") && $0.hasSuffix("=?)") }, "\(plan)\n\(sql)")
        }
    }

    @Test func aPushKilledAfterSealingIsFinishedNotRepeated() throws {
        let p = try SyncReplicas()
        try p.insert(p.a, "one")
        let state = try #require(try SyncState.read(from: p.a.database))
        try SyncSession(store: p.a).push()
        // As if killed after the segment was sealed and before the store recorded it.
        try p.a.database.execute(#"UPDATE "_vein_sync_replicas" SET "sequence" = 0, "digest" = zeroblob(32) WHERE "sequence" = 1"#)
        try state.write(to: p.a.database)
        try p.insert(p.a, "two")
        let report = try SyncSession(store: p.a).push()
        #expect(report.segments == 2, "the sealed segment recorded, then one more")
        #expect(try FileManager.default.contentsOfDirectory(atPath: SyncSession(store: p.a).folder.replicaPath(try ChangeLogSchema.replica(in: p.a.database)!))
            .filter { $0.hasSuffix(".vseal") }.count == 2)
        try SyncSession(store: p.b).pull()
        #expect(try p.titles(p.b) == ["one", "two"])
    }

    @Test func aCopyOfAReplicaPushingAsTheSameReplicaIsRefused() throws {
        let p = try SyncReplicas()
        try p.insert(p.a, "one")
        try p.a.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: p.dir.path("a.vein"), toPath: p.dir.path("copy.vein"))
        let copy = try Store.open(p.dir.path("copy.vein"), keys: KeyOptions(keyring: nil))
        try p.insert(copy, "on the copy")
        try SyncSession(store: p.a).push()
        // The copy's first segment would hold the commit both files share: it is the one a sent. Its own
        // commit then goes as segment 2, and whichever of the two files pushes next is refused.
        #expect(try SyncSession(store: copy).push().segments == 2)
        try p.insert(p.a, "on a")
        #expect {
            try SyncSession(store: p.a).push()
        } throws: { error in
            guard case SyncError.damaged(_, let reason) = error else { return false }
            return reason.contains("another copy of this store file syncs as the same replica")
        }
    }

    @Test func theLogKeepsWhatWasNotSent() throws {
        let p = try SyncReplicas()
        try p.insert(p.a, "one")
        try p.insert(p.a, "two")
        try p.a.database.transaction { _ = try ChangeLogPruning.prune(in: p.a.database, through: .max) }
        try SyncSession(store: p.a).push()
        try SyncSession(store: p.b).pull()
        #expect(try p.titles(p.b) == ["one", "two"], "a prune before the push removed nothing unsent")
        try p.a.database.transaction { _ = try ChangeLogPruning.prune(in: p.a.database, through: .max) }
        #expect(try p.a.database.scalar(#"SELECT count(*) FROM "_vein_transactions""#)?.int64 == 0, "once sent, it may go")
    }

    @Test func aSegmentWaitsForWhatItsWriterHadMerged() throws {
        let p = try SyncReplicas()
        try p.insert(p.a, "from a")
        try SyncSession(store: p.a).push()
        try SyncSession(store: p.b).pull()
        // b updates a's row: its segment says it had merged a's segment 1.
        try p.b.database.transaction { try p.b.database.execute(#"UPDATE "Post" SET "views" = 9"#) }
        try SyncSession(store: p.b).push()
        // A third replica that sees b's segment before a's waits for a's.
        _ = try SyncSession.join(relay: p.dir.path("relay"), keyFile: p.dir.path("sync.key"), to: p.dir.path("c.vein"), protection: { _ in .plaintext })
        let c = try Store.open(p.dir.path("c.vein"), keys: KeyOptions(keyring: nil))
        try SyncSession.adopt(c, relay: try SyncRelay.open(p.dir.path("relay")), keyFile: p.dir.path("sync.key"))
        let aFolder = try SyncSession(store: p.a).folder.replicaPath(try ChangeLogSchema.replica(in: p.a.database)!)
        try FileManager.default.moveItem(atPath: aFolder + "/segment-00000001.vseal", toPath: p.dir.path("held"))
        let waiting = try SyncSession(store: c).pull()
        #expect(waiting.segments == 0)
        #expect(waiting.waiting.values.first?.contains("waits for replica") == true, "\(waiting)")
        try FileManager.default.moveItem(atPath: p.dir.path("held"), toPath: aFolder + "/segment-00000001.vseal")
        let pulled = try SyncSession(store: c).pull()
        #expect(pulled.segments == 2)
        #expect(try c.database.scalar(#"SELECT "views" FROM "Post""#)?.int64 == 9)
    }
}

extension SyncSession {
    /// The relay's folder, in tests of a folder relay.
    var folder: FolderRelay { relay.backend as! FolderRelay }
}
