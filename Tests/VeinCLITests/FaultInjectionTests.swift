import Foundation
import Testing
import Vein
@testable import VeinCLI

/// SQLite's ioerr and crash tests, for Vein: each command that writes runs again and again on a fresh copy
/// of its files, with the Nth I/O call failing (SQLite's through the test VFS, then Vein's own file calls),
/// with a full disk at the Nth write, and with the power cut after the Nth sync; N runs from 1 until a run
/// completes without reaching its fault. After each: the command failed with a clear message (74, or 65
/// for damage it found) or succeeded, and every store opens, verifies clean and holds the old or the new
/// state exactly; nothing is left behind.
///
/// `make test` fails every N of Vein's own file calls and of the syncs (a few dozen per command), and every
/// `sqliteStep`th of SQLite's calls (hundreds) and the last `sqliteStep` of them; VEIN_FAULTS_FULL=1 runs
/// every N instead (`everyCall`). One suite, serialized: the test VFS arms one run at a time.
/// Each loop prints a "fault coverage:" line (calls counted, runs, exit statuses).
@Suite(.serialized) struct FaultInjectionTests {
    static let sqliteStep = 3
    static let full = ProcessInfo.processInfo.environment["VEIN_FAULTS_FULL"] == "1"

    @Test(.enabled(if: !full, "VEIN_FAULTS_FULL=1 runs every call instead (everyCall)"), arguments: FaultScenarios.all.map(\.name))
    func sampled(_ name: String) throws {
        try FaultScenarios.loop(name) { mode in
            mode == .sqliteIOError || mode == .sqliteDiskFull ? Self.sqliteStep : 1
        }
    }

    @Test(.enabled(if: full, "the full fault-injection loop runs with VEIN_FAULTS_FULL=1"), arguments: FaultScenarios.all.map(\.name))
    func everyCall(_ name: String) throws {
        try FaultScenarios.loop(name) { _ in 1 }
    }
}

/// The operations the loop runs, and their files: a blog store with posts and attachments, under a key file.
enum FaultScenarios {
    static let manifest = VeinRunner.exampleManifest
    static let migrationFolder = VeinRunner.packageRoot.appendingPathComponent("examples/migration").path

    /// VEIN_FAULTS_MODE (a mode's name, "power loss") keeps the loop to one mode, for a closer look.
    static let modes = FaultMode.allCases.filter { mode in
        ProcessInfo.processInfo.environment["VEIN_FAULTS_MODE"].map { $0 == mode.rawValue } ?? true
    }

    /// Runs `name`'s loop in every mode, every `step(mode)`th N.
    static func loop(_ name: String, step: (FaultMode) -> Int) throws {
        try #require(FaultInjector.installed, "the test VFS is registered")
        let scenario = try #require(all.first { $0.name == name })
        for mode in modes {
            let coverage = try FaultLoop.run(scenario, mode, step: step(mode))
            print("fault coverage: \(coverage)")
        }
    }

    // MARK: Files

    /// A fixed ULID: the same records, hence the same export, in every run.
    static func id(_ prefix: String, _ n: Int) -> String {
        let digits = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var n = n, suffix = ""
        for _ in 0..<8 { suffix = String(digits[n % 32]) + suffix; n /= 32 }
        return "01J" + prefix + String(repeating: "0", count: 23 - prefix.count - 8) + suffix
    }

    /// `posts` posts (ids `01JP…` from `first`), each with two attachments (`01JA…`): JSON Lines at `version`.
    /// One attachment in five is over 100 MiB (the migration deletes those).
    static func blogLines(posts: Int, first: Int = 0, version: String = "0.0.1") -> String {
        var text = "{\"vein\":1,\"app\":\"com.example.blog\",\"schemaVersion\":\"\(version)\"}\n"
        let content = String(repeating: "Vein keeps data safe. ", count: 12)
        for i in first..<(first + posts) {
            let attachments = [id("A", 2 * i), id("A", 2 * i + 1)]
            text += "{\"model\":\"Post\",\"id\":\"\(id("P", i))\",\"title\":\"Post \(i)\",\"content\":\"\(content)\",\"views\":\(i),"
                + "\"publishedAt\":\"2026-01-31T12:00:00.\(String(format: "%06d", i))Z\",\"attachments\":[\"\(attachments[0])\",\"\(attachments[1])\"]}\n"
            for (j, attachment) in attachments.enumerated() {
                let size = (2 * i + j) % 5 == 0 ? 150.5 : Double(j) + 0.25
                text += "{\"model\":\"Attachment\",\"id\":\"\(attachment)\",\"name\":\"file \(i).\(j)\",\"fileType\":\"png\",\"sizeMiB\":\(size),"
                    + "\"data\":\"AAEC\",\"post\":\"\(id("P", i))\"}\n"
            }
        }
        return text
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `s.vein` under `s.key` holding `posts` posts, made with `manifest`.
    static func makeStore(_ directory: String, posts: Int = 24, manifest: String = manifest, version: String = "0.0.1") throws {
        try write(blogLines(posts: posts, version: version), to: directory + "/base.jsonl")
        let made = CommandOutcome.vein(["import", directory + "/s.vein", directory + "/base.jsonl", "--create", "--schema", manifest,
                                        "--key-file", directory + "/s.key", "-q"])
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: directory + "/base.jsonl")
    }

    /// The state of `s.vein` under `s.key`.
    static func storeState(_ directory: String, _ name: String = "s", keyFile: String? = "s") -> String {
        StoreState.of(directory + "/\(name).vein", keyFile: keyFile.map { directory + "/\($0).key" })
    }

    /// The key file's presence beside a store's state: a store that did not appear leaves no key. After a
    /// power loss a key file may stay without its store (the key is made durable first, so that a store
    /// never outlives its key): the next run with the same --key-file uses it.
    static func keyAndStore(_ directory: String, _ name: String, afterPowerLoss: Bool) -> String {
        let state = storeState(directory, name, keyFile: name)
        if afterPowerLoss && state == "absent" { return state }
        return "key file: \(FileSystem.fileExists(directory + "/\(name).key"))\n" + state
    }

    // MARK: The scenarios

    static let all: [FaultScenario] = commandScenarios + historyScenarios + backupScenarios + keyringScenarios

    /// A store keeping a change log (docs/history.md): whatever a fault stops, the rows and the log stay
    /// together, both old or both new (ARCHITECTURE.md I20), and `vein verify` is clean.
    static let historyScenarios: [FaultScenario] = [
        FaultScenario(
            name: "history: import",
            setUp: { d in
                try makeHistoryStore(d)
                try write(blogLines(posts: 8, first: 100), to: d + "/more.jsonl")
            },
            operation: { d in CommandOutcome.vein(["import", d + "/s.vein", d + "/more.jsonl", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) + "\n--- log\n" + logState(d) }),
        FaultScenario(
            name: "history: query update",
            setUp: { d in try makeHistoryStore(d) },
            operation: { d in CommandOutcome.vein(["query", d + "/s.vein", "update Post where views > 3 set views = views + 1", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) + "\n--- log\n" + logState(d) }),
        FaultScenario(
            name: "history: query delete",
            setUp: { d in try makeHistoryStore(d) },
            operation: { d in CommandOutcome.vein(["query", d + "/s.vein", "delete Post where views < 3", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) + "\n--- log\n" + logState(d) }),
    ]

    /// Continuous backups (docs/backup.md#crashes): a pass leaves the folder restoring to the old or the
    /// new state, and a restore leaves NEW absent or whole.
    static let backupScenarios: [FaultScenario] = [
        FaultScenario(
            name: "backup: continuous pass",
            setUp: { d in try makeBackedUpStore(d, segments: 0) },
            operation: { d in CommandOutcome.vein(["backup", d + "/s.vein", d + "/dest", "--continuous", "--key-file", d + "/s.key", "-q"]) },
            state: { d, _ in storeState(d) + "\n--- restored\n" + restoredState(d) + "\n--- files\n" + backupFiles(d) }),
        FaultScenario(
            name: "backup: restore",
            setUp: { d in try makeBackedUpStore(d, segments: 1) },
            operation: { d in CommandOutcome.vein(["restore", d + "/dest", d + "/r.vein", "--key-file", d + "/s.key", "-q"]) },
            state: { d, _ in storeState(d, "r", keyFile: "s") }),
    ]

    /// A store keeping a change log, backed up to `dest` (a snapshot and `segments` segments), with one
    /// more commit not yet sent.
    static func makeBackedUpStore(_ directory: String, segments: Int) throws {
        try makeHistoryStore(directory)
        func pass() throws {
            let done = CommandOutcome.vein(["backup", directory + "/s.vein", directory + "/dest", "--continuous", "--key-file", directory + "/s.key", "-q"])
            try #require(done.status == 0, "\(done.stderr)")
        }
        func commit(_ n: Int) throws {
            let done = CommandOutcome.vein(["query", directory + "/s.vein", "update Post where views > \(n) set views = views + 10", "--key-file", directory + "/s.key"])
            try #require(done.status == 0, "\(done.stderr)")
        }
        try pass()
        for n in 0..<segments {
            try commit(n)
            try pass()
        }
        try commit(segments + 3)
    }

    /// What `dest` restores to, restored outside the run's directory.
    static func restoredState(_ directory: String) -> String {
        let target = FileManager.default.temporaryDirectory.path + "/vein-fault-restore-\(UUID().uuidString).vein"
        defer { FileSystem.removeDatabaseFiles(target) }
        do {
            let folder = try BackupFolder.open(directory + "/dest")
            let storeKey = try KeyFile.read(directory + "/s.key")
            _ = try BackupRestore.restore(folder, keys: { _, _ in try BackupKey.derived(from: storeKey, storeID: folder.storeID) }, to: target,
                                          protection: { _ in .plaintext }, at: nil)
        } catch {
            return "not restorable: \(error)"
        }
        return StoreState.of(target, keys: KeyOptions(keyring: nil))
    }

    /// The backup folder's files, without a sealing temporary: one is left only when removing its second
    /// name failed or the power was cut, and the next pass removes it (`StagedFileTests` hold the rest).
    static func backupFiles(_ directory: String) -> String {
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: directory + "/dest")) ?? []
        return files.filter { !$0.contains(".sealing-") }.sorted().joined(separator: "\n")
    }

    /// `s.vein` keeping a change log, with the posts `makeStore` imports.
    static func makeHistoryStore(_ directory: String) throws {
        let made = CommandOutcome.vein(["create", directory + "/s.vein", "--schema", manifest, "--history", "--key-file", directory + "/s.key", "-q"])
        try #require(made.status == 0, "\(made.stderr)")
        try write(blogLines(posts: 8), to: directory + "/base.jsonl")
        let imported = CommandOutcome.vein(["import", directory + "/s.vein", directory + "/base.jsonl", "--key-file", directory + "/s.key", "-q"])
        try #require(imported.status == 0, "\(imported.stderr)")
        try FileManager.default.removeItem(atPath: directory + "/base.jsonl")
    }

    /// The log's transactions without what differs between runs (times, the replica id, the order of one
    /// save's changes, which follows a dictionary's): token, kind, author and every change.
    static func logState(_ directory: String) -> String {
        do {
            let store = try Store.open(directory + "/s.vein", keys: StoreState.keys(directory + "/s.key"), mode: .readOnly)
            return try ChangeLogReader().transactions(in: store.database).map { t in
                "\(t.token) \(t.kind.rawValue) \(t.author ?? "-") "
                    + LoggedModelChange.changes(of: t, manifest: store.manifest).map { JSONWriter.string($0.json) }.sorted().joined(separator: " ")
            }.joined(separator: "\n")
        } catch {
            return "unreadable log: \(error)"
        }
    }

    /// `vein` commands, run in process, their keys in key files.
    static let commandScenarios: [FaultScenario] = [
        FaultScenario(
            name: "create",
            setUp: { _ in },
            operation: { d in CommandOutcome.vein(["create", d + "/s.vein", "--schema", manifest, "--key-file", d + "/s.key"]) },
            state: { d, lost in keyAndStore(d, "s", afterPowerLoss: lost) }),
        FaultScenario(
            name: "import --create",
            setUp: { d in try write(blogLines(posts: 16), to: d + "/data.jsonl") },
            operation: { d in
                CommandOutcome.vein(["import", d + "/s.vein", d + "/data.jsonl", "--create", "--schema", manifest, "--key-file", d + "/s.key"])
            },
            state: { d, lost in keyAndStore(d, "s", afterPowerLoss: lost) }),
        FaultScenario(
            name: "import",
            setUp: { d in
                try makeStore(d)
                try write(blogLines(posts: 16, first: 100), to: d + "/more.jsonl")
            },
            operation: { d in CommandOutcome.vein(["import", d + "/s.vein", d + "/more.jsonl", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) }),
        FaultScenario(
            name: "context save",
            setUp: { d in try makeStore(d) },
            operation: { d in CommandOutcome.engine { try saveWithRelationships(d) } },
            state: { d, _ in StoreState.of(d + "/s.vein", keyFile: d + "/s.key", maskingIdsNotIn: fixtureIds) }),
        FaultScenario(
            name: "migrate",
            setUp: { d in try makeStore(d, manifest: migrationFolder + "/blog-0.0.1.json5") },
            operation: { d in CommandOutcome.vein(["migrate", d + "/s.vein", "--plan", migrationFolder + "/plan.json5", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) }),
        FaultScenario(
            name: "key rotate",
            setUp: { d in try makeStore(d) },
            operation: { d in CommandOutcome.vein(["key", "rotate", d + "/s.vein", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) },
            afterSuccess: { d in
                // Promoted: the key file itself opens the store.
                let store = try Store.open(d + "/s.vein", keys: StoreState.keys(d + "/s.key"), mode: .readOnly)
                #expect(store.encryption.keySource == .keyFile(d + "/s.key"))
            },
            afterFailure: { d, outcome in
                // Stopped after the store took its new key: the message says so, and where that key is, so
                // that no one throws away the only key that opens the store as a leftover.
                let current = try? Store.open(d + "/s.vein", keys: StoreState.keys(d + "/s.key"), mode: .readOnly)
                guard current?.encryption.keySource == .keyFile(d + "/s.key.pending") else { return }
                #expect(outcome.stderr.contains("stays pending in the key file \(d)/s.key.pending"), "\(outcome.stderr)")
            },
            mayLeave: { d, name in
                // The key a rotation replaces is kept as KEY.retired-DATE, for the copies made before it.
                if name.hasPrefix("s.key.retired-") { return true }
                // Once the store is renamed into place under the new key, the pending key stays until the key
                // file holding it is durable: it is the key that opens the store (every open tries it; the
                // next rotation promotes it). A pending key that does not open the store is a leftover.
                guard name == "s.key.pending" else { return false }
                return (try? Store.open(d + "/s.vein", keys: StoreState.keys(d + "/s.key.pending"), mode: .readOnly)) != nil
            }),
        FaultScenario(
            name: "backup",
            setUp: { d in try makeStore(d) },
            operation: { d in CommandOutcome.vein(["backup", d + "/s.vein", d + "/b.vein", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) + "\n--- backup\n" + storeState(d, "b") }),
        FaultScenario(
            name: "encrypt",
            setUp: { d in
                try write(blogLines(posts: 16), to: d + "/data.jsonl")
                let made = CommandOutcome.vein(["import", d + "/p.vein", d + "/data.jsonl", "--create", "--schema", manifest, "--plaintext", "-q"])
                try #require(made.status == 0, "\(made.stderr)")
            },
            operation: { d in CommandOutcome.vein(["encrypt", d + "/p.vein", d + "/e.vein", "--key-file", d + "/e.key"]) },
            state: { d, lost in storeState(d, "p", keyFile: nil) + "\n--- copy\n" + keyAndStore(d, "e", afterPowerLoss: lost) }),
        FaultScenario(
            name: "decrypt",
            setUp: { d in try makeStore(d) },
            operation: { d in CommandOutcome.vein(["decrypt", d + "/s.vein", d + "/d.vein", "--key-file", d + "/s.key"]) },
            state: { d, _ in storeState(d) + "\n--- copy\n" + storeState(d, "d", keyFile: nil) }),
        FaultScenario(
            name: "export -o",
            setUp: { d in
                try makeStore(d)
                try write("an older export\n", to: d + "/out.json")
            },
            operation: { d in CommandOutcome.vein(["export", d + "/s.vein", "-o", d + "/out.json", "--key-file", d + "/s.key"]) },
            state: { d, _ in
                let text = (try? String(contentsOfFile: d + "/out.json", encoding: .utf8)) ?? "(unreadable)"
                return "mode \(String(FileSystem.mode(d + "/out.json"), radix: 8))\n" + text
            }),
    ]

    /// Scenarios whose key is kept in the keyring (the loop's FaultKeyring, whose calls fail in turn with the
    /// file calls): engine calls, as the CLI makes them, since `vein` itself talks to the real Secret Service.
    static let keyringScenarios: [FaultScenario] = [
        FaultScenario(
            name: "create, keyring",
            setUp: { _ in },
            operation: { d in
                CommandOutcome.engine {
                    _ = try StoreCreator.create(at: d + "/s.vein", manifest: try SchemaManifest.load(path: manifest),
                                                protection: .encrypted(keyringOptions(d)))
                }
            },
            state: { d, lost in keyringState(d, ["s"], afterPowerLoss: lost) }),
        FaultScenario(
            name: "key rotate, keyring",
            setUp: { d in try makeStore(d) },
            operation: { d in
                CommandOutcome.engine { _ = try KeyRotation.rotate(d + "/s.vein", keys: keyringOptions(d), to: .sameSource) }
            },
            state: { d, lost in keyringState(d, ["s"], afterPowerLoss: lost) },
            afterFailure: { d, outcome in
                let path = d + "/s.vein"
                let pending = (try? FaultKeyring.of(d).lookup(storePath: path, state: .pending)).flatMap { $0 }
                guard let pending, (try? Store.open(path, keys: KeyOptions(environment: [:], keyring: OneKeyKeyring(key: pending)), mode: .readOnly)) != nil
                else { return }
                #expect(outcome.stderr.contains("stays pending in the keyring"), "\(outcome.stderr)")
            }),
        FaultScenario(
            name: "backup, keyring",
            setUp: { d in try makeStore(d) },
            operation: { d in
                CommandOutcome.engine {
                    // What `vein backup` does for a store whose key is in the keyring: the backup's key is kept
                    // there too, with a record of the backup beside the store's key.
                    let store = try Store.open(d + "/s.vein", keys: keyringOptions(d), mode: .readOnly)
                    _ = try StoreCopier.copy(store, to: d + "/b.vein",
                                             protection: .existingKey(try store.keyForCopies(), source: .keyring, keyring: FaultKeyring.of(d),
                                                                      app: store.meta.app, backupOf: store.realPath))
                }
            },
            state: { d, lost in keyringState(d, ["s", "b"], afterPowerLoss: lost) }),
    ]

    static func keyringOptions(_ directory: String) -> KeyOptions {
        KeyOptions(environment: [:], keyring: FaultKeyring.of(directory))
    }

    /// The stores `names` opened with the directory's keyring (its current key, or the pending one), and
    /// whether the keyring holds a stray key for them: a key that opens nothing, unless it is the current
    /// key left while a rotation's pending key opens the store (as a key file stays beside KEY.pending), or
    /// any key of a store that is absent. After a power loss strays are allowed: a crash leaves them, as it
    /// leaves key files, for the next rotation or create to settle.
    static func keyringState(_ directory: String, _ names: [String], afterPowerLoss: Bool) -> String {
        let keyring = FaultKeyring.of(directory)
        return names.map { name in
            let path = directory + "/\(name).vein"
            let state = StoreState.of(path, keys: keyringOptions(directory))
            guard !afterPowerLoss else { return "\(name): " + state }
            func opens(_ state: KeyState) -> Bool? {
                guard let key = (try? keyring.lookup(storePath: path, state: state)).flatMap({ $0 }) else { return nil }
                return (try? Store.open(path, keys: KeyOptions(environment: [:], keyring: OneKeyKeyring(key: key)), mode: .readOnly)) != nil
            }
            let current = opens(.current), pending = opens(.pending)
            let stray = pending == false || (current == false && pending != true)
            // A record of a backup that is not there (one withdrawn before it appeared) is a stray too.
            let records = (try? keyring.backupRecords(of: path)) ?? []
            let strayRecords = records.filter { !FileSystem.fileExists($0.backup) }.count
            return "\(name): stray key \(stray), backups recorded \(records.count - strayRecords), stray records \(strayRecords)\n" + state
        }.joined(separator: "\n---\n")
    }

    /// The ids `makeStore` writes: the context scenario's export masks every other id.
    static let fixtureIds: Set<String> = Set((0..<24).map { id("P", $0) } + (0..<48).map { id("A", $0) })

    /// One save with every kind of relationship change: a new post with two new attachments, an attachment
    /// moved to another post, a field changed, and a post deleted with its attachments (cascade).
    static func saveWithRelationships(_ directory: String) throws {
        let store = try Store.open(directory + "/s.vein", keys: StoreState.keys(directory + "/s.key"))
        let context = ObjectContext(store: store)
        let post = try context.insert("Post", ["title": .string("new"), "content": .string("written in one save")])
        for n in 0..<2 {
            try context.insert("Attachment", ["name": .string("new \(n)"), "fileType": .string("jpg"), "sizeMiB": .double(2),
                                              "post": .string(post.id)])
        }
        let moved = try #require(try context.object("Attachment", id: id("A", 2)))
        try moved.set("post", .string(id("P", 3)))
        let changed = try #require(try context.object("Post", id: id("P", 4)))
        try changed.set("views", .int(4_000))
        try context.delete(try #require(try context.object("Post", id: id("P", 5))))
        try context.save()
    }
}
