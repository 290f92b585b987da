import Foundation
import Synchronization
import Testing
@testable import Vein

/// What only a PostgreSQL relay can do wrong (docs/sync.md#a-postgresql-relay): rows altered, cut, swapped,
/// brought from another sync or deleted by someone with the database; a server that stops mid-sync or was
/// never there; a role that may not write. The rest of the suite runs over both backends
/// (`SyncCommandTests`). Skipped where no PostgreSQL server can be made.
@Suite(.enabled(if: PostgresServer.available, "Debian's postgresql package is not installed"))
struct PostgresRelayTests {
    typealias S = SyncCommandTests

    static func server() throws -> PostgresServer { try PostgresServer.shared.get() }

    @Test func alteredRowsAreRefusedByNameAndNothingPastThemIsMerged() throws {
        let (r, relay) = try S.replicas(.postgres)
        defer { r.cleanUp() }
        let server = try Self.server(), database = S.database(relay)
        try S.insert(r, "a", "one")
        try #require(try S.sync(r, "a").status == 0)
        try S.insert(r, "a", "two")
        try #require(try S.sync(r, "a").status == 0)
        let replica = try server.psql(database, "SELECT DISTINCT replica FROM vein_segments").trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(replica.count == 26, "\(replica)")
        let first = "\(relay): replica \(replica)'s segment 1"
        try server.psql(database, "CREATE TABLE kept AS SELECT * FROM vein_segments")

        func expectRefused(_ words: String, status: Int32 = 65, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try S.sync(r, "b")
            #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(words), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(!(try S.export(r, "b")).contains(#""title":"one""#), "nothing merged", sourceLocation: sourceLocation)
        }
        func restore() throws {
            try server.psql(database, "DELETE FROM vein_segments; INSERT INTO vein_segments SELECT * FROM kept")
        }
        // A flipped byte in the payload.
        try server.psql(database, "UPDATE vein_segments SET data = set_byte(data, length(data) - 20, get_byte(data, length(data) - 20) # 1) WHERE sequence = 1")
        try expectRefused("\(first) is damaged: it is not what was sealed (its authentication tag does not match)")
        // Cut short.
        try restore()
        try server.psql(database, "UPDATE vein_segments SET data = substring(data FROM 1 FOR length(data) - 5) WHERE sequence = 1")
        try expectRefused("\(first) is damaged: it is ")
        // Swapped: each says where it belongs.
        try restore()
        try server.psql(database, "UPDATE vein_segments SET data = (SELECT data FROM kept WHERE sequence = 2) WHERE sequence = 1")
        try expectRefused("\(first) is damaged: it says it is replica")
        // Whole again: merged.
        try restore()
        let merged = try S.sync(r, "b")
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try S.export(r, "b").contains(#""title":"two""#))
        // Rolled back: a segment b merged is gone.
        try server.psql(database, "DELETE FROM vein_segments WHERE sequence = 2")
        let back = try S.sync(r, "b")
        #expect(back.status == 65)
        #expect(back.stderr.contains("went back: replica \(replica)'s segment 2, already received, is missing or different"), "\(back.stderr)")
    }

    @Test func aSegmentOfAnotherSyncIsRefused() throws {
        let (r, relay) = try S.replicas(.postgres)
        defer { r.cleanUp() }
        let server = try Self.server()
        try S.insert(r, "a", "one")
        try #require(try S.sync(r, "a").status == 0)
        let other = try server.database()
        try S.expectOK(r, ["create", "c.vein", "--schema", VeinRunner.exampleManifest, "--history", "--key-file", "kc"])
        try S.expectOK(r, ["sync", "init", "c.vein", "--relay", other, "--sync-key-file", "sync.key", "--key-file", "kc"])
        try S.insert(r, "c", "elsewhere")
        try #require(try S.sync(r, "c").status == 0)
        let hex = try server.psql(S.database(other), "SELECT encode(data, 'hex') FROM vein_segments").trimmingCharacters(in: .whitespacesAndNewlines)
        try server.psql(S.database(relay), "UPDATE vein_segments SET data = decode('\(hex)', 'hex')")
        let result = try S.sync(r, "b")
        #expect(result.status == 65)
        #expect(result.stderr.contains("is damaged: it belongs to another sync"), "\(result.stderr)")
        #expect(!(try S.export(r, "b")).contains(#""title":"one""#))
    }

    /// A server that stops between syncs, or during one, is an error that says so (exit 69) and loses
    /// nothing: when it is back, the next run sends and merges what was waiting.
    @Test func aStoppedServerIsSaidAndTheNextRunGoesOn() throws {
        let server = try PostgresServer()  // its own: stopping it must not stop the other tests' relays
        let r = try VeinRunner()
        defer { r.cleanUp(); try? server.stop() }
        let relay = try server.database()
        try S.expectOK(r, ["create", "a.vein", "--schema", VeinRunner.exampleManifest, "--history", "--key-file", "ka"])
        try S.expectOK(r, ["sync", "init", "a.vein", "--relay", relay, "--sync-key-file", "sync.key", "--key-file", "ka"])
        try S.expectOK(r, ["sync", "join", "b.vein", "--relay", relay, "--sync-key-file", "sync.key", "--key-file", "kb"])
        try S.insert(r, "a", "written while the relay was down")
        try server.stop()
        let down = try S.sync(r, "a")
        #expect(down.status == 69, "\(down.stderr)")
        #expect(down.stderr.hasPrefix("vein: error: the relay postgres:///relay1?host=\(server.folder)&user=postgres cannot be reached: "), "\(down.stderr)")
        #expect(down.stderr.contains("hint: nothing was sent or merged past what this run reports"), "\(down.stderr)")
        // Stopped while a watching sync holds its connection: it stops with the error, never silently.
        try server.start()
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: VeinRunner.binary)
        watcher.arguments = ["sync", r.path("b.vein"), "--watch", "--quiet", "--key-file", r.path("kb")]
        watcher.environment = VeinRunner.isolatedEnvironment
        let errors = Pipe()
        watcher.standardError = errors
        try watcher.run()
        defer { ContinuousBackupCommandTests.stop(watcher) }
        usleep(500_000)
        try server.stop()
        var waited = 0
        while watcher.isRunning && waited < 100 { usleep(100_000); waited += 1 }
        #expect(!watcher.isRunning, "the watcher stops when its relay goes away")
        if !watcher.isRunning {
            #expect(watcher.terminationStatus == 69)
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(said.contains("cannot be reached"), "\(said)")
        }
        try server.start()
        let sent = try S.sync(r, "a")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.hasPrefix("sent 1 commit in 1 segment"), "\(sent.stderr)")
        try #require(try S.sync(r, "b").status == 0)
        #expect(try S.export(r, "b").contains("written while the relay was down"))
    }

    /// The server refusing an insert (a full disk, SQLSTATE 53100; a role without rights, 42501; raised
    /// here by a trigger, as the server would): said, and nothing counts as sent, so the next run sends it.
    @Test func aRefusedWriteIsSaidAndNothingCountsAsSent() throws {
        let (r, relay) = try S.replicas(.postgres)
        defer { r.cleanUp() }
        let server = try Self.server(), database = S.database(relay)
        func refuse(_ state: String, _ words: String) throws {
            try server.psql(database, """
                CREATE OR REPLACE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION '\(words)' USING ERRCODE = '\(state)'; END $$ LANGUAGE plpgsql;
                DROP TRIGGER IF EXISTS refusing ON vein_segments;
                CREATE TRIGGER refusing BEFORE INSERT ON vein_segments FOR EACH ROW EXECUTE FUNCTION refuse()
                """)
        }
        try S.insert(r, "a", "sent later")
        try refuse("53100", "could not extend file: No space left on device")
        let full = try S.sync(r, "a")
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.hasPrefix("vein: error: the relay \(relay) is full: could not extend file: No space left on device\n"
                                      + "hint: nothing more was sent; free space on the relay's server and sync again\n"), "\(full.stderr)")
        try refuse("42501", "permission denied for table vein_segments")
        let denied = try S.sync(r, "a")
        #expect(denied.status == 74, "\(denied.stderr)")
        #expect(denied.stderr.hasPrefix("vein: error: the relay \(relay) refused a write or read: permission denied for table vein_segments\n"),
                "\(denied.stderr)")
        let status = try S.expectOK(r, ["sync", "status", "a.vein", "--json"] + S.key("a")).stdout
        #expect(status.contains(#""unsent": 1"#), "\(status)")
        try server.psql(database, "DROP TRIGGER refusing ON vein_segments")
        let sent = try S.sync(r, "a")
        #expect(sent.stderr.hasPrefix("sent 1 commit in 1 segment"), "\(sent.stderr)")
        try #require(try S.sync(r, "b").status == 0)
        #expect(try S.export(r, "b").contains("sent later"))
    }

    @Test func aDatabaseThatIsNotARelayOrCarriesAnotherSyncIsRefused() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let server = try Self.server()
        let relay = try server.database(), empty = try server.database()
        try S.expectOK(r, ["create", "n.vein", "--schema", VeinRunner.exampleManifest, "--history", "--key-file", "kn"])
        try S.expectOK(r, ["sync", "init", "n.vein", "--relay", relay, "--sync-key-file", "s.key", "--key-file", "kn"])
        let notRelay = try r.vein(["sync", "join", "x.vein", "--relay", empty, "--sync-key-file", "s.key", "--plaintext"])
        #expect(notRelay.status == 65)
        #expect(notRelay.stderr.hasPrefix("vein: error: \(empty) is not a Vein sync relay: its database holds no Vein sync relay (no vein_relay table)\n"),
                "\(notRelay.stderr)")
        try S.expectOK(r, ["create", "m.vein", "--schema", VeinRunner.exampleManifest, "--history", "--plaintext"])
        let inUse = try r.vein(["sync", "init", "m.vein", "--relay", relay, "--sync-key-file", "s.key"])
        #expect(inUse.status == 65)
        #expect(inUse.stderr.contains("\(relay) already carries the sync "), "\(inUse.stderr)")
        // No server at all.
        let nowhere = "postgres:///relay?host=\(r.path("no-server"))&user=postgres"
        let unreachable = try r.vein(["sync", "join", "y.vein", "--relay", nowhere, "--sync-key-file", "s.key", "--plaintext"])
        #expect(unreachable.status == 69)
        #expect(unreachable.stderr.hasPrefix("vein: error: the relay \(nowhere) cannot be reached: "), "\(unreachable.stderr)")
        #expect(!r.exists("y.vein") && !r.exists("x.vein"))
        // A password in the URL is never printed.
        let secret = "postgres://postgres:hunter2@/relay?host=\(r.path("no-server"))"
        let hidden = try r.vein(["sync", "join", "z.vein", "--relay", secret, "--sync-key-file", "s.key", "--plaintext"])
        #expect(hidden.status == 69)
        #expect(!hidden.stderr.contains("hunter2"), "\(hidden.stderr)")
    }

    /// A checkpoint removed by another replica's prune while it is read: its parts are read in one
    /// transaction, so the read is whole; removed between a join's or a prune's listing and its read, the
    /// join starts from (the prune compares with) the newer checkpoint the other prune published. All
    /// through a hook between the steps of the read.
    @Test func aCheckpointPrunedWhileItIsReadIsReadWholeOrPassedOver() throws {
        let server = try Self.server()
        let url = try server.database()
        defer { PostgresRelay.partsReadHook.current = nil }

        // Three parts, removed once the first is read.
        let reader = try PostgresRelay(url: url), remover = try PostgresRelay(url: url)
        let sealed = Data((0..<(2 * PostgresRelay.partLength + 1_000)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) })
        try reader.writing(.checkpoint, 1) { path in try sealed.write(to: URL(fileURLWithPath: path)) }
        let removed = Mutex(false)
        PostgresRelay.partsReadHook.current = { location, table, part in
            guard location == url, table == "vein_checkpoints", part == 0 else { return }
            try? remover.removeSnapshot(.checkpoint, 1)
            removed.withLock { $0 = true }
        }
        let read = try reader.reading(.checkpoint, 1) { path in try Data(contentsOf: URL(fileURLWithPath: path)) }
        #expect(removed.withLock { $0 })
        #expect(try reader.snapshots(.checkpoint).isEmpty, "the prune removed it")
        #expect(read == sealed, "read \(read.count) bytes of \(sealed.count)")

        // A join: b's prune publishes checkpoint 2 and removes a's checkpoint 1 after the join chose 1.
        let (r, relay) = try SyncPruneCommandTests.synced(.postgres)
        defer { r.cleanUp() }
        try S.expectOK(r, ["sync", "prune", "a.vein"] + S.key("a"))
        try S.insert(r, "b", "after checkpoint 1")
        try S.expectOK(r, ["sync", "b.vein"] + S.key("b"))
        let pruned = PruneBeforeARead(r, relay, "b")
        _ = try SyncSession.join(relay: relay, keyFile: r.path("sync.key"), to: r.path("c.vein"), protection: { _ in .plaintext })
        let prune = try #require(pruned.result.withLock { $0 })
        #expect(prune.stderr.contains("sync: published checkpoint 2 on the relay\n"), "\(prune.stderr)")
        #expect(try S.expectOK(r, ["export", "c.vein", "-q"]).stdout.contains("after checkpoint 1"), "c starts from checkpoint 2")

        // A prune: b's publishes checkpoint 3 and removes 2 after a's prune chose 2 as the newest.
        for n in 1...2 {
            try S.insert(r, "b", "after checkpoint 2, \(n)")
            try S.expectOK(r, ["sync", "b.vein"] + S.key("b"))
        }
        let prunedAgain = PruneBeforeARead(r, relay, "b")
        let session = try SyncSession(store: Store.open(r.path("a.vein"), keys: KeyOptions(keyFile: r.path("ka"))), keyring: nil)
        let report = try session.prune()
        let second = try #require(prunedAgain.result.withLock { $0 })
        #expect(second.stderr.contains("sync: published checkpoint 3 on the relay\n"), "\(second.stderr)")
        #expect(report.checkpoint >= 3)
    }
}

/// Runs `vein sync prune` of one replica the first time a checkpoint of a relay is about to be read, after
/// the reader chose it (`PostgresRelay.partsReadHook`); `result` is what the prune printed.
final class PruneBeforeARead: Sendable {
    let result = Mutex<VeinRunner.Result?>(nil)

    init(_ r: VeinRunner, _ relay: String, _ replica: String) {
        PostgresRelay.partsReadHook.current = { [self] location, table, part in
            guard location == relay, table == "vein_checkpoints", part == nil, self.result.withLock({ $0 == nil }) else { return }
            let ran = try? r.vein(["sync", "prune", "\(replica).vein"] + SyncCommandTests.key(replica))
            self.result.withLock { $0 = ran }
        }
    }
}
