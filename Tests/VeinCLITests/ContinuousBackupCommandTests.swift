import Foundation
import Testing

/// `vein backup --continuous`, `vein restore` and `vein backup verify` through the built binary
/// (docs/backup.md): a restore at a moment, new generations when the chain cannot go on, every kind of
/// tampering refused by name, keys, and the errors' words.
@Suite struct ContinuousBackupCommandTests {
    /// b.vein, the example blog store with a change log, encrypted with the key in k.
    static func store(plaintext: Bool = false) throws -> VeinRunner {
        let r = try VeinRunner()
        let created = try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--history"]
                                 + (plaintext ? ["--plaintext"] : ["--key-file", "k"]))
        try #require(created.status == 0, "\(created.stderr)")
        return r
    }

    static let key = ["--key-file", "k"]

    static func insert(_ r: VeinRunner, _ title: String, key: [String] = key) throws {
        let result = try r.vein(["query", "b.vein", #"insert Post(title: "\#(title)", content: "c")"#] + key)
        try #require(result.status == 0, "\(result.stderr)")
    }

    static func backup(_ r: VeinRunner, _ extra: [String] = key) throws -> VeinRunner.Result {
        let result = try r.vein(["backup", "b.vein", "dest", "--continuous"] + extra)
        try #require(result.status == 0, "\(result.stderr)")
        return result
    }

    /// `vein backup b.vein dest --continuous --watch`, running until `stop`.
    static func watch(_ r: VeinRunner) throws -> Process {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: VeinRunner.binary)
        watcher.arguments = ["backup", r.path("b.vein"), r.path("dest"), "--continuous", "--watch", "--quiet", "--key-file", r.path("k")]
        watcher.environment = VeinRunner.isolatedEnvironment
        try watcher.run()
        return watcher
    }

    /// SIGKILL: a child of the test runner can inherit a mask that blocks SIGTERM.
    static func stop(_ watcher: Process) {
        kill(watcher.processIdentifier, SIGKILL)
        watcher.waitUntilExit()
    }

    /// Whether `name` exists within five seconds.
    static func appears(_ r: VeinRunner, _ name: String) -> Bool {
        for _ in 0..<100 where !r.exists(name) { usleep(50_000) }
        return r.exists(name)
    }

    /// `vein restore dest r.vein` gives the store as it is now.
    static func expectRestoresToTheStore(_ r: VeinRunner, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let restored = try r.vein(["restore", "dest", "r.vein"] + key)
        try #require(restored.status == 0, "\(restored.stderr)", sourceLocation: sourceLocation)
        #expect(try export(r, "r.vein") == export(r, "b.vein"), sourceLocation: sourceLocation)
    }

    static func export(_ r: VeinRunner, _ store: String, key: [String] = key) throws -> String {
        let result = try r.vein(["export", store] + key)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func aRestoreGivesTheStoreAsItWasAtATokenOrATime() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "one")
        let first = try Self.backup(r)
        #expect(first.stderr.hasPrefix("dest: generation 1 begins with a snapshot (the first snapshot), "), "\(first.stderr)")
        let afterOne = try Self.export(r, "b.vein")
        usleep(20_000)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let between = formatter.string(from: Date())
        usleep(1_100_000)
        try Self.insert(r, "two")
        try Self.insert(r, "three")
        let second = try Self.backup(r)
        #expect(second.stderr == "dest: generation 1, segment 1: 2 commits, \(FileManager.default.sizeOfFile(r.path("dest/00000001/segment-00000001.vseal"))) bytes\n")
        #expect(try Self.backup(r).stderr == "", "nothing new: nothing sent, nothing said")

        let restored = try r.vein(["restore", "dest", "now.vein"] + Self.key)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stderr.hasPrefix("restored now.vein from generation 1, last segment 1 at token 3 ("), "\(restored.stderr)")
        #expect(restored.stderr.hasSuffix("): 2 commits replayed, 3 rows, key in the key file k\n"), "\(restored.stderr)")
        #expect(try Self.export(r, "now.vein") == Self.export(r, "b.vein"))
        // The restored store's log starts empty, and its rows are not taken for another program's writes.
        try #require(try r.vein(["query", "now.vein", #"insert Post(title: "after", content: "c")"#] + Self.key).status == 0)
        let history = try r.vein(["history", "now.vein"] + Self.key).stdout
        #expect(history.split(separator: "\n").filter { !$0.hasPrefix("  ") }.count == 1, "\(history)")
        #expect(!history.contains("another program"), "\(history)")

        let atToken = try r.vein(["restore", "dest", "t1.vein", "--at", "1", "--json"] + Self.key)
        #expect(atToken.status == 0, "\(atToken.stderr)")
        #expect(atToken.stdout.contains(#""lastSegment": 0"#) && atToken.stdout.contains(#""lastToken": 1"#), "\(atToken.stdout)")
        #expect(try Self.export(r, "t1.vein") == afterOne)
        let atTime = try r.vein(["restore", "dest", "time.vein", "--at", between] + Self.key)
        #expect(atTime.status == 0, "\(atTime.stderr)")
        #expect(try Self.export(r, "time.vein") == afterOne)
        #expect(try r.vein(["verify", "time.vein"] + Self.key).status == 0)

        let verify = try r.vein(["backup", "verify", "dest", "--store", "b.vein"] + Self.key)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.hasPrefix("generation 1: snapshot and 1 segment, through token 3 ("), "\(verify.stdout)")
        // What a cron job checks: the store says what it last sent.
        let marker = try String(contentsOfFile: r.path("dest/vein-backup"), encoding: .utf8).split(separator: "\n")
        let backupID = String(marker[1].dropFirst("backup ".count))
        #expect(try r.vein(["info", "b.vein"] + Self.key).stdout.contains("\nbackup      \(backupID): generation 1, segment 1, through token 3\n"))

        let early = try r.vein(["restore", "dest", "early.vein", "--at", "2020-01-01T00:00:00Z"] + Self.key)
        #expect(early.status == 65)
        #expect(early.stderr.hasPrefix("vein: error: dest holds nothing that early: its oldest snapshot is of token 1 at "), "\(early.stderr)")
        #expect(!r.exists("early.vein"))
    }

    /// Each kind of tampering, in `verify` and in `restore`: exit 65, the file named, and no store written.
    @Test(arguments: [
        ("a flipped byte", "printf '\\001' | dd of=dest/00000001/segment-00000002.vseal bs=1 seek=200 count=1 conv=notrunc 2>/dev/null",
         "dest/00000001/segment-00000002.vseal is damaged: it is not what was sealed (its authentication tag does not match)"),
        ("a deleted segment", "rm dest/00000001/segment-00000002.vseal",
         "dest/00000001/segment-00000002.vseal is damaged: it is missing: segment 3 follows segment 1"),
        ("two segments swapped", "cd dest/00000001 && mv segment-00000002.vseal x && mv segment-00000003.vseal segment-00000002.vseal && mv x segment-00000003.vseal",
         "dest/00000001/segment-00000002.vseal is damaged: it says it is segment 3 of generation 1, not segment 2 of generation 1"),
        ("a duplicated segment", "cp dest/00000001/segment-00000002.vseal dest/00000001/segment-00000004.vseal",
         "dest/00000001/segment-00000004.vseal is damaged: it says it is segment 2 of generation 1, not segment 4 of generation 1"),
        ("a truncated segment", "truncate -s -5 dest/00000001/segment-00000003.vseal",
         "dest/00000001/segment-00000003.vseal is damaged: it is "),
        ("a payload length past any file", "printf '\\377\\377\\377\\377\\377\\377\\377\\360' | dd of=dest/00000001/segment-00000002.vseal bs=1 seek=144 count=8 conv=notrunc 2>/dev/null",
         "dest/00000001/segment-00000002.vseal is damaged: it is "),
        ("a replaced snapshot", "cp dest/00000001/segment-00000001.vseal dest/00000001/snapshot.vseal",
         "dest/00000001/snapshot.vseal is damaged: it says it is segment 1 of generation 1, not the snapshot of generation 1"),
    ])
    func tamperingIsRefusedNamingTheFile(what: String, command: String, message: String) throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "zero")
        _ = try Self.backup(r)
        for title in ["one", "two", "three"] {
            try Self.insert(r, title)
            _ = try Self.backup(r)
        }
        try #require(try r.run("/bin/bash", ["-c", command]).status == 0, "\(what)")
        let verify = try r.vein(["backup", "verify", "dest"] + Self.key)
        #expect(verify.status == 65, "\(what)")
        #expect(verify.stderr.hasPrefix("vein: error: " + message), "\(what): \(verify.stderr)")
        let restore = try r.vein(["restore", "dest", "r.vein"] + Self.key)
        #expect(restore.status == 65, "\(what)")
        #expect(restore.stderr.hasPrefix("vein: error: " + message), "\(what): \(restore.stderr)")
        #expect(!r.exists("r.vein"), "\(what): nothing is restored past a damaged file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: r.directory.path).allSatisfy { !$0.contains("restoring") })
    }

    @Test func aSegmentOfAnotherStoreIsRefused() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "one")
        _ = try Self.backup(r)
        try Self.insert(r, "two")
        _ = try Self.backup(r)
        try #require(try r.vein(["create", "other.vein", "--schema", VeinRunner.exampleManifest, "--history", "--key-file", "k2"]).status == 0)
        try #require(try r.vein(["backup", "other.vein", "other", "--continuous", "--key-file", "k2"]).status == 0)
        try #require(try r.vein(["query", "other.vein", #"insert Post(title: "x", content: "c")"#, "--key-file", "k2"]).status == 0)
        try #require(try r.vein(["backup", "other.vein", "other", "--continuous", "--key-file", "k2"]).status == 0)
        try FileManager.default.removeItem(atPath: r.path("dest/00000001/segment-00000001.vseal"))
        try FileManager.default.copyItem(atPath: r.path("other/00000001/segment-00000001.vseal"), toPath: r.path("dest/00000001/segment-00000001.vseal"))
        let verify = try r.vein(["backup", "verify", "dest"] + Self.key)
        #expect(verify.status == 65)
        #expect(verify.stderr.hasPrefix("vein: error: dest/00000001/segment-00000001.vseal is damaged: it belongs to another store (store id "), "\(verify.stderr)")
        // Writing into a folder of another store is refused before anything is written.
        let mixed = try r.vein(["backup", "b.vein", "other", "--continuous"] + Self.key)
        #expect(mixed.status == 65)
        #expect(mixed.stderr == """
            vein: error: other holds the backup of another store than b.vein
            hint: a continuous backup needs a folder of its own: name a new or empty one

            """)
    }

    @Test func verifyWithTheStoreFindsTheNewestSegmentsDeleted() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        _ = try Self.backup(r)
        for title in ["one", "two"] {
            try Self.insert(r, title)
            _ = try Self.backup(r)
        }
        try FileManager.default.removeItem(atPath: r.path("dest/00000001/segment-00000002.vseal"))
        #expect(try r.vein(["backup", "verify", "dest"] + Self.key).status == 0, "the folder alone cannot tell")
        let verify = try r.vein(["backup", "verify", "dest", "--store", "b.vein"] + Self.key)
        #expect(verify.status == 65)
        #expect(verify.stderr.hasPrefix("""
            vein: error: dest/00000001/segment-00000002.vseal is damaged: it is missing: b.vein recorded sending it, and the backup ends at generation 1, segment 1
            """), "\(verify.stderr)")
    }

    @Test func aMigrationAKeyRotationAndAnOutsideWriteStartNewGenerations() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "one")
        _ = try Self.backup(r)
        let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path
        try #require(try r.vein(["migrate", "b.vein", "--plan", plan] + Self.key).status == 0)
        #expect(try Self.backup(r).stderr.hasPrefix("dest: generation 2 begins with a snapshot (a migration (token 2)), "))
        try #require(try r.vein(["key", "rotate", "b.vein", "--key-file", "k", "--to-key-file", "k2"]).status == 0)
        let rotated = try Self.backup(r, ["--key-file", "k2"])
        #expect(rotated.stderr.hasPrefix("dest: generation 3 begins with a snapshot (the backup key changed), "), "\(rotated.stderr)")
        // An older generation sealed under the retired key is named, not failed, when its key is not given.
        let verify = try r.vein(["backup", "verify", "dest", "--key-file", "k2"])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.hasPrefix("generation 1: not checked: dest/00000001/snapshot.vseal was sealed with another key than the one from the store key from the key file k2\n"), "\(verify.stdout)")
        #expect(try r.vein(["restore", "dest", "r.vein", "--key-file", "k2"]).status == 0)
        #expect(try Self.export(r, "r.vein", key: ["--key-file", "k2"]) == Self.export(r, "b.vein", key: ["--key-file", "k2"]))
    }

    @Test func writesAnotherProgramMadeAreRecordedAndANewSnapshotTakesThem() throws {
        let r = try Self.store(plaintext: true)
        defer { r.cleanUp() }
        try Self.insert(r, "one", key: [])
        try #require(try r.vein(["backup", "b.vein", "dest", "--continuous", "--backup-key-file", "bk"]).status == 0)
        try #require(try r.run("/usr/bin/sqlcipher", [r.path("b.vein"), #"UPDATE "Post" SET "views" = 7"#]).status == 0)
        let after = try r.vein(["backup", "b.vein", "dest", "--continuous", "--backup-key-file", "bk"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stderr.hasPrefix("""
            1 row write made outside Vein recorded in the change log
            dest: generation 2 begins with a snapshot (writes made outside Vein (token 2)), 
            """), "\(after.stderr)")
        let restored = try r.vein(["restore", "dest", "r.vein", "--backup-key-file", "bk"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try Self.export(r, "r.vein", key: []) == Self.export(r, "b.vein", key: []), "a plaintext store's backup restores in plaintext")
    }

    /// A purge of a commit not yet sent starts a new generation: the purged change could not be replayed.
    @Test func aPurgeOfWhatWasNotSentStartsANewGeneration() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        _ = try Self.backup(r)
        let inserted = try r.vein(["query", "b.vein", #"insert Post(title: "forget me", content: "c")"#] + Self.key)
        let id = String(inserted.stdout.split(separator: " ")[2].prefix(26))
        try #require(try r.vein(["history", "purge", "b.vein", "--id", id] + Self.key).status == 0)
        let pass = try Self.backup(r)
        #expect(pass.stderr.hasPrefix("dest: generation 2 begins with a snapshot (an object's history was purged (through token 1)), "), "\(pass.stderr)")
        try Self.expectRestoresToTheStore(r)
    }

    /// A store file put back from an older copy of itself commits again under tokens its backup holds:
    /// the pass sees the commit at its last token is another, and starts a new generation.
    @Test func aStorePutBackFromAnOlderCopyStartsANewGeneration() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "a1")
        _ = try Self.backup(r)
        try FileManager.default.copyItem(atPath: r.path("b.vein"), toPath: r.path("old.vein"))
        try Self.insert(r, "a2")
        _ = try Self.backup(r)
        try FileManager.default.removeItem(atPath: r.path("b.vein"))
        try FileManager.default.moveItem(atPath: r.path("old.vein"), toPath: r.path("b.vein"))
        try Self.insert(r, "b2")
        let pass = try Self.backup(r)
        #expect(pass.stderr.hasPrefix("dest: generation 2 begins with a snapshot (the store's log is not the one backed up so far (its commit 2 differs)), "),
                "\(pass.stderr)")
        try Self.expectRestoresToTheStore(r)
    }

    /// A folder copied and then written to apart (the same backup id in two places): each pass chains onto
    /// the file it finds in its own folder, never onto the digest the store recorded for the other.
    @Test func twoCopiesOfAFolderEachChainOntoTheirOwnFiles() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "one")
        _ = try Self.backup(r)
        try Self.insert(r, "two")
        _ = try Self.backup(r)
        try #require(try r.run("/bin/cp", ["-a", r.path("dest"), r.path("copy")]).status == 0)
        for (i, folder) in ["dest", "copy", "dest", "copy", "copy", "dest"].enumerated() {
            try Self.insert(r, "round \(i)")
            try #require(try r.vein(["backup", "b.vein", folder, "--continuous", "-q"] + Self.key).status == 0)
        }
        for folder in ["dest", "copy"] {
            let verify = try r.vein(["backup", "verify", folder] + Self.key)
            #expect(verify.status == 0, "\(folder): \(verify.stderr)")
            #expect(try r.vein(["restore", folder, "\(folder).vein"] + Self.key).status == 0)
        }
        #expect(try Self.export(r, "dest.vein") == Self.export(r, "b.vein"))
        #expect(try Self.export(r, "copy.vein") != Self.export(r, "b.vein"), "the copy missed the last round")
    }

    /// A log pruned to nothing: the snapshot covers the pruned token, so the next pass has nothing to do
    /// (it once found the log "pruned past" its snapshot every time and began a generation each pass).
    @Test func aLogPrunedToNothingDoesNotMakeEveryPassAGeneration() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "one")
        try Self.insert(r, "two")
        try #require(try r.vein(["history", "prune", "b.vein", "--keep", "0"] + Self.key).status == 0)
        #expect(try Self.backup(r).stderr.hasPrefix("dest: generation 1 begins with a snapshot (the first snapshot), "))
        #expect(try Self.backup(r).stderr == "", "nothing new: nothing sent")
        try Self.insert(r, "three")
        #expect(try Self.backup(r).stderr.hasPrefix("dest: generation 1, segment 1: 1 commit, "))
        try Self.expectRestoresToTheStore(r)
    }

    /// A segment deleted from the middle of the newest generation: the next pass does not extend a chain
    /// no restore can follow; it starts a new generation, and the newest state restores.
    @Test func aGapInTheNewestGenerationStartsANewOne() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        _ = try Self.backup(r)
        for title in ["one", "two", "three"] {
            try Self.insert(r, title)
            _ = try Self.backup(r)
        }
        try FileManager.default.removeItem(atPath: r.path("dest/00000001/segment-00000002.vseal"))
        try Self.insert(r, "four")
        let pass = try Self.backup(r)
        #expect(pass.stderr.hasPrefix("dest: generation 2 begins with a snapshot (generation 1 is not whole (its segment 2 is missing)), "), "\(pass.stderr)")
        try Self.expectRestoresToTheStore(r)
        // The old generation's damage is still reported: it is there, and does not restore.
        let verify = try r.vein(["backup", "verify", "dest"] + Self.key)
        #expect(verify.status == 65)
        #expect(verify.stderr.hasPrefix("vein: error: dest/00000001/segment-00000002.vseal is damaged: it is missing: segment 3 follows segment 1"))
    }

    /// An older generation whose removal was interrupted (its snapshot gone) is passed over by readers and
    /// named by verify.
    @Test func anOlderGenerationWithoutItsSnapshotIsPassedOver() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        _ = try Self.backup(r)
        try Self.insert(r, "one")
        _ = try Self.backup(r)
        let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path
        try #require(try r.vein(["migrate", "b.vein", "--plan", plan] + Self.key).status == 0)
        _ = try Self.backup(r)
        try FileManager.default.removeItem(atPath: r.path("dest/00000001/snapshot.vseal"))
        #expect(try r.vein(["restore", "dest", "r.vein"] + Self.key).status == 0)
        let verify = try r.vein(["backup", "verify", "dest"] + Self.key)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.hasPrefix("generation 1: not checked: dest/00000001/snapshot.vseal is missing (a removal was interrupted, or it was deleted)\n"),
                "\(verify.stdout)")
    }

    /// DEST must be a folder; a pass refused for want of a key leaves nothing in DEST.
    @Test func aDestinationThatIsNotAFolderIsRefusedAndNothingIsMadeWithoutAKey() throws {
        let r = try Self.store(plaintext: true)
        defer { r.cleanUp() }
        try r.write("afile", "mine")
        try FileManager.default.createSymbolicLink(atPath: r.path("link"), withDestinationPath: r.path("b.vein"))
        for dest in ["afile", "link"] {
            let result = try r.vein(["backup", "b.vein", dest, "--continuous", "--backup-key-file", "bk"])
            #expect(result.status == 65, "\(dest)")
            #expect(result.stderr.hasPrefix("vein: error: \(dest) is not a Vein backup: it is not a folder\n"), "\(result.stderr)")
        }
        #expect(try r.vein(["backup", "b.vein", "dest", "--continuous"]).status == 69)
        #expect(!r.exists("dest"), "a refused pass makes no folder")
    }

    /// Restoring with a backup key file and no keyring: NEW's key has nowhere to go, said before the
    /// segments are read.
    @Test func aRestoreWithoutAKeyringForNewsKeySaysSoFirst() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        try Self.insert(r, "one")
        _ = try Self.backup(r, Self.key + ["--backup-key-file", "bk"])
        let restore = try r.vein(["restore", "dest", "n.vein", "--backup-key-file", "bk"])
        #expect(restore.status == 69)
        #expect(restore.stderr.hasPrefix("vein: error: no keyring to keep n.vein's new key in ("), "\(restore.stderr)")
        #expect(restore.stderr.contains("hint: give NEW a key with --key-file FILE (made when it does not exist), or restore it with --plaintext"))
        #expect(try r.vein(["restore", "dest", "n.vein", "--backup-key-file", "bk", "--key-file", "nk"]).status == 0)
        #expect(try Self.export(r, "n.vein", key: ["--key-file", "nk"]) == Self.export(r, "b.vein"))
    }

    /// `--watch` goes on through a migration: the store is opened again and a generation begins after it.
    @Test func watchGoesOnThroughAMigration() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let watcher = try Self.watch(r)
        defer { Self.stop(watcher) }
        func appears(_ name: String) -> Bool { Self.appears(r, name) }
        #expect(appears("dest/00000001/snapshot.vseal"))
        let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path
        try #require(try r.vein(["migrate", "b.vein", "--plan", plan] + Self.key).status == 0)
        func insert(_ headline: String) throws {
            let result = try r.vein(["query", "b.vein", #"insert Post(headline: "\#(headline)", slug: "s", content: "c")"#] + Self.key)
            try #require(result.status == 0, "\(result.stderr)")
        }
        try insert("after the migration")
        #expect(appears("dest/00000002/snapshot.vseal"), "a generation after the migration")
        #expect(watcher.isRunning)
        try insert("and again")
        #expect(appears("dest/00000002/segment-00000001.vseal"))
    }

    @Test func errorsSayWhatToDo() throws {
        let r = try Self.store(plaintext: true)
        defer { r.cleanUp() }
        let noKey = try r.vein(["backup", "b.vein", "dest", "--continuous"])
        #expect(noKey.status == 69)
        #expect(noKey.stderr == """
            vein: error: no key for the backup dest
            hint: give --backup-key-file FILE (a plaintext store's backups need one), or the store's key with --key-file, --key-env or --passphrase

            """)
        try #require(try r.vein(["create", "nolog.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let noLog = try r.vein(["backup", "nolog.vein", "d2", "--continuous", "--backup-key-file", "bk"])
        #expect(noLog.status == 65)
        #expect(noLog.stderr == """
            vein: error: nolog.vein keeps no change log, which continuous backups send
            hint: start one with 'vein history enable STORE'

            """)
        let at = try r.vein(["restore", "dest", "n.vein", "--at", "yesterday"])
        #expect(at.status == 64)
        #expect(at.stderr.hasPrefix(#"vein: error: --at takes a time (ISO 8601 with Z or an offset, such as 2026-12-01T09:30:00Z) or a token (a whole number, as 'vein history' prints), not "yesterday""#))
        let oneShot = try r.vein(["backup", "b.vein", "copy.vein", "--backup-key-file", "bk"])
        #expect(oneShot.status == 64)
        #expect(oneShot.stderr.hasPrefix("vein: error: --backup-key-file and --keep-days are for continuous backups: add --continuous"))
        try FileManager.default.createDirectory(atPath: r.path("full"), withIntermediateDirectories: false)
        try r.write("full/notes.txt", "mine")
        let full = try r.vein(["backup", "b.vein", "full", "--continuous", "--backup-key-file", "bk"])
        #expect(full.status == 65)
        #expect(full.stderr.hasPrefix("vein: error: full is not a Vein backup: it holds other files (a continuous backup needs a new or empty folder)"))
        let notBackup = try r.vein(["restore", "full", "n.vein", "--backup-key-file", "bk"])
        #expect(notBackup.status == 65)
        #expect(notBackup.stderr.hasPrefix("vein: error: full is not a Vein backup: it has no vein-backup file"))
        try #require(try r.vein(["backup", "b.vein", "dest", "--continuous", "--backup-key-file", "bk"]).status == 0)
        try r.write("other.key", String(repeating: "ab", count: 32), mode: 0o600)
        let wrongKey = try r.vein(["restore", "dest", "n.vein", "--backup-key-file", "other.key"])
        #expect(wrongKey.status == 77)
        #expect(wrongKey.stderr.hasPrefix("vein: error: dest/00000001/snapshot.vseal was sealed with another key than the one from the backup key file other.key\n"))
        #expect(!r.exists("n.vein"))
        // One pass at a time; a folder with no generation; a backup key that is not a raw key.
        let busy = try r.run("/usr/bin/flock", [r.path("dest/.lock"), VeinRunner.binary, "backup", "b.vein", "dest", "--continuous", "--backup-key-file", "bk"])
        #expect(busy.status == 75)
        #expect(busy.stderr == """
            vein: error: another process is writing to the backup dest
            hint: one run at a time writes a backup; try again when it has finished

            """)
        try r.write("words.key", "a passphrase, not a key", mode: 0o600)
        let words = try r.vein(["restore", "dest", "n.vein", "--backup-key-file", "words.key"])
        #expect(words.status == 65)
        #expect(words.stderr == "vein: error: a backup key is 64 hex digits (a raw 256-bit key)\n")
        try FileManager.default.removeItem(atPath: r.path("dest/00000001"))
        let empty = try r.vein(["restore", "dest", "n.vein", "--backup-key-file", "bk"])
        #expect(empty.status == 65)
        #expect(empty.stderr == "vein: error: dest holds no snapshot yet\n")
    }

    /// The backup key travels alone: export it under a passphrase, and restore where the keyring is new.
    @Test func anExportedKeyRestoresOnAFreshKeyring() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let vein = VeinRunner.binary
        let first = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            set -e
            '\(vein)' create b.vein --schema '\(VeinRunner.exampleManifest)' --history --quiet
            '\(vein)' query b.vein 'insert Post(title: "kept", content: "c")' >/dev/null
            '\(vein)' backup b.vein dest --continuous --quiet
            '\(vein)' restore dest same-machine.vein --quiet
            '\(vein)' export same-machine.vein | grep -c '"kept"'
            printf 'a long enough passphrase\\na long enough passphrase\\n' | '\(vein)' backup export-key dest --to backup.key
            """], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "1\n", "the keyring kept the backup's key: the restore on the same machine needed nothing")
        #expect(first.stderr.contains("wrote the key of dest to backup.key, sealed under the passphrase"))
        let mode = try FileManager.default.attributesOfItem(atPath: r.path("backup.key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let fresh = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            printf 'wrong passphrase\\n' | '\(vein)' restore dest wrong.vein --backup-key-file backup.key; echo "exit $?"
            printf 'a long enough passphrase\\n' | '\(vein)' restore dest elsewhere.vein --backup-key-file backup.key --key-file new.key --quiet || exit 1
            '\(vein)' export elsewhere.vein --key-file new.key | grep -c '"kept"'
            """], environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(fresh.stdout == "exit 77\n1\n", "\(fresh.stdout)")
        #expect(fresh.stderr.contains("vein: error: the passphrase does not open the backup key in backup.key"))
    }

    /// `--watch` sends a commit while it runs: the new segment appears soon after the commit.
    @Test func watchSendsEachCommitSoon() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let watcher = try Self.watch(r)
        defer { Self.stop(watcher) }
        func appears(_ name: String) -> Bool { Self.appears(r, name) }
        #expect(appears("dest/00000001/snapshot.vseal"))
        try Self.insert(r, "watched")
        #expect(appears("dest/00000001/segment-00000001.vseal"), "a segment within five seconds of the commit")
        try Self.insert(r, "again")
        #expect(appears("dest/00000001/segment-00000002.vseal"))
        #expect(watcher.isRunning)
    }
}

extension FileManager {
    func sizeOfFile(_ path: String) -> Int { (try? attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }
}
