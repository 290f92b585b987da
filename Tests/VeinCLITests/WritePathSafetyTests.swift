import Foundation
import Testing

/// One mistyped path must never destroy a store: every path vein writes (export -o, .output, --history,
/// --to-key-file, a copy's DEST, a new key file, standard output) is refused with exit 73 when it is the
/// store, a link to it, its -wal or its key file, and nothing changes; an existing file that is not text is
/// replaced only with --force.
@Suite struct WritePathSafetyTests {
    /// b.vein (key file k) with two posts, a symbolic link `sym` and a hard link `hard` to it, and `x/lnk`, a
    /// symbolic link to the directory `sub`: `x/lnk/..` is the store's directory, not `x`.
    static func fixture() throws -> VeinRunner {
        let r = try VeinRunner.blogStore()
        try #require(try r.query(#"insert Post(title: "one", content: "x")"#).status == 0)
        try #require(try r.query(#"insert Post(title: "two", content: "y")"#).status == 0)
        try #require(symlink("b.vein", r.path("sym")) == 0 && link(r.path("b.vein"), r.path("hard")) == 0)
        for name in ["x", "sub"] { try FileManager.default.createDirectory(atPath: r.path(name), withIntermediateDirectories: false) }
        try #require(symlink("../sub", r.path("x/lnk")) == 0)
        return r
    }

    /// A -wal beside the store, as a store with WAL left has, and `wal-link`, a hard link to it. Made again
    /// before each use: the last connection to close removes the -wal.
    static func leaveWAL(_ r: VeinRunner) throws {
        unlink(r.path("wal-link"))
        if !r.exists("b.vein-wal") { FileManager.default.createFile(atPath: r.path("b.vein-wal"), contents: nil) }
        try #require(link(r.path("b.vein-wal"), r.path("wal-link")) == 0)
    }

    static let destroysStore = "it is the store b.vein, and writing over it would destroy the store"
    static let damagesStore = "it is the write-ahead log of the store b.vein, and writing over it would damage the store"
    static let damagesJournal = "it is the rollback journal of the store b.vein, and writing over it would damage the store"
    static let losesKey = "it is the key file of the store b.vein, and writing over it would lose the key that opens the store"
    static let refusedHint = "hint: nothing was written; choose another file\n"
    static let forceHint = "hint: nothing was written; add --force to replace it, or choose another file\n"

    /// Each name that leads to the store or its key file, and why it is refused. `x/lnk/../b.vein-journal` is
    /// the store's journal, which does not exist: before, it was read as text (`x/b.vein-journal`) and written.
    static let targets: [(name: String, reason: String)] = [
        ("b.vein", destroysStore), ("sym", destroysStore), ("hard", destroysStore),
        ("b.vein-wal", damagesStore), ("wal-link", damagesStore), ("x/lnk/../b.vein-journal", damagesJournal), ("k", losesKey),
    ]

    /// The store's export and its key file, to compare before and after.
    static func state(_ r: VeinRunner) throws -> String {
        let export = try r.vein(["export", "b.vein", "--key-file", "k"])
        #expect(export.status == 0, "the store opens: \(export.stderr)")
        return export.stdout + (try String(contentsOfFile: r.path("k"), encoding: .utf8))
    }

    /// Runs `command` for each target: exit 73, the exact message (after `prefix`), and the store and its key
    /// file as they were.
    static func expectRefused(_ r: VeinRunner, targets: [(name: String, reason: String)] = targets, prefix: String = "",
                              sourceLocation: SourceLocation = #_sourceLocation,
                              _ command: (String) throws -> VeinRunner.Result) throws {
        let before = try state(r)
        for (name, reason) in targets {
            try leaveWAL(r)
            let result = try command(name)
            #expect(result.status == 73, "\(name): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr == "vein: error: \(prefix)refusing to write \(name): \(reason)\n" + refusedHint, sourceLocation: sourceLocation)
            #expect(try state(r) == before, "\(name)", sourceLocation: sourceLocation)
        }
    }

    @Test func exportOutput() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        for force in [[], ["--force"]] {
            try Self.expectRefused(r) { try r.vein(["export", "b.vein", "--key-file", "k", "-o", $0] + force) }
        }
        // A dangling link to where the -wal would be.
        unlink(r.path("b.vein-wal"))
        try #require(symlink("b.vein-wal", r.path("to-wal")) == 0)
        let dangling = try r.vein(["export", "b.vein", "--key-file", "k", "-o", "to-wal"])
        #expect(dangling.status == 73)
        #expect(dangling.stderr == "vein: error: refusing to write to-wal: \(Self.damagesStore)\n" + Self.refusedHint)
        #expect(!r.exists("b.vein-wal"))
    }

    @Test func replOutputInAScript() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        for force in ["", "--force "] {
            try Self.expectRefused(r, prefix: "line 1: ") { name in
                try r.vein(["repl", "b.vein", "--key-file", "k"], stdin: ".output \(force)\(name)\ncount Post\n")
            }
        }
    }

    @Test func rotationToAKeyFile() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        // The current key file is where a rotation may put the new key; every other target is the store.
        let storeTargets = Self.targets.filter { $0.name != "k" }
        for force in [[], ["--force"]] {
            try Self.expectRefused(r, targets: storeTargets) { try r.vein(["key", "rotate", "b.vein", "--key-file", "k", "--to-key-file", $0] + force) }
        }
        // The new key is first recorded in FILE.pending.
        try #require(symlink("b.vein", r.path("new.key.pending")) == 0)
        try Self.expectRefused(r, targets: [("new.key.pending", Self.destroysStore)]) { _ in
            try r.vein(["key", "rotate", "b.vein", "--key-file", "k", "--to-key-file", "new.key"])
        }
    }

    @Test func copyDestinations() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        try Self.expectRefused(r) { try r.vein(["backup", "b.vein", $0, "--key-file", "k"]) }
        try Self.expectRefused(r) { try r.vein(["decrypt", "b.vein", $0, "--key-file", "k"]) }
        // DEST whose -wal SQLite would write is the store.
        try #require(symlink("b.vein", r.path("c.vein-wal")) == 0)
        for command in [["backup", "b.vein", "c.vein", "--key-file", "k"], ["decrypt", "b.vein", "c.vein", "--key-file", "k"]] {
            let result = try r.vein(command)
            #expect(result.status == 73)
            #expect(result.stderr == "vein: error: refusing to write c.vein: c.vein-wal, which SQLite writes beside it, is the store b.vein, "
                    + "and writing over it would destroy the store\n" + Self.refusedHint)
            #expect(!r.exists("c.vein"))
        }
        // encrypt: a plaintext source, and a new key file where SQLite keeps DEST's journal.
        #expect(try r.vein(["create", "p.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let hardPlain = link(r.path("p.vein"), r.path("p-hard"))
        try #require(hardPlain == 0)
        let onSource = try r.vein(["encrypt", "p.vein", "p-hard", "--key-file", "e.key"])
        #expect(onSource.status == 73)
        #expect(onSource.stderr == "vein: error: refusing to write p-hard: it is the store p.vein, and writing over it would destroy the store\n"
                + Self.refusedHint)
        let keyOnJournal = try r.vein(["encrypt", "p.vein", "e.vein", "--key-file", "e.vein-journal"])
        #expect(keyOnJournal.status == 73)
        #expect(keyOnJournal.stderr == "vein: error: refusing to write e.vein-journal: it is the rollback journal of the new store e.vein, "
                + "and SQLite would write over it\n" + Self.refusedHint)
        #expect(!r.exists("e.vein") && !r.exists("e.key") && !r.exists("e.vein-journal"))
    }

    /// Before: `create n.vein --key-file n.vein-wal` wrote the key where SQLite keeps the log, and the first
    /// session on the store replaced it: the store could never be opened again.
    @Test(arguments: [["create", "n.vein", "--schema", VeinRunner.exampleManifest],
                      ["import", "n.vein", "e.json", "--create", "--schema", VeinRunner.exampleManifest]])
    func newKeyFileOnANewStoresNames(command: [String]) throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        try #require(try r.vein(["export", "b.vein", "--key-file", "k", "-o", "e.json"]).status == 0)
        for (key, what) in [("n.vein-wal", "the write-ahead log of the new store n.vein"), ("n.vein-journal", "the rollback journal of the new store n.vein"),
                            ("n.vein", "the new store n.vein")] {
            let result = try r.vein(command + ["--key-file", key])
            #expect(result.status == 73, "\(key): \(result.stderr)")
            #expect(result.stderr == "vein: error: refusing to write \(key): it is \(what), and SQLite would write over it\n" + Self.refusedHint)
            #expect(!r.exists("n.vein") && !r.exists(key))
        }
    }

    /// `vein export b.vein >> b.vein`: the shell opens the store for appending before vein runs. Every
    /// command is checked before it runs: `key status`, `key rotate`, `create` and `encrypt` do not open their
    /// store through the shared path, and before they printed into the key file (a raw key followed by text
    /// reads as a passphrase: "wrong key" from then on) or into the manifest, and exited 0.
    @Test func standardOutputIntoTheStoreOrItsKey() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        try r.write("blog.json5", try String(contentsOfFile: VeinRunner.exampleManifest, encoding: .utf8))
        try #require(try r.vein(["create", "p.vein", "--schema", "blog.json5", "--plaintext"]).status == 0)
        try r.write("pass.key", "a long passphrase here\n", mode: 0o600)
        let before = try Self.state(r)
        func keyFile(_ name: String) -> String { "it is the key file \(name), and writing into it would change the key it holds" }
        for (command, target, reason) in [("export b.vein --key-file k", "b.vein", Self.destroysStore),
                                          ("query b.vein 'count Post' --key-file k", "hard", Self.destroysStore),
                                          ("query b.vein 'count Post' --key-file k", "k", keyFile("k")),
                                          ("key status b.vein --key-file k", "k", keyFile("k")),
                                          ("key rotate b.vein --key-file k --to-key-file k2 --json", "k", keyFile("k")),
                                          ("encrypt p.vein e.vein --key-file pass.key --json", "pass.key", keyFile("pass.key")),
                                          ("create n.vein --schema blog.json5 --plaintext --json", "blog.json5",
                                           "it is blog.json5, which this command reads, and vein writes nothing into a file it reads")] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: r.path(target)))
            let result = try r.run("/bin/sh", ["-c", "\"$0\" \(command) >> \(target)", VeinRunner.binary])
            #expect(result.status == 73, "\(command) >> \(target): \(result.stderr)")
            #expect(result.stderr == "vein: error: refusing to write standard output: \(reason)\n" + Self.refusedHint)
            #expect(try Data(contentsOf: URL(fileURLWithPath: r.path(target))) == bytes, "\(command) >> \(target)")
            #expect(!r.exists("e.vein") && !r.exists("n.vein") && !r.exists("k2"))
        }
        #expect(try Self.state(r) == before)
    }

    /// A new store's -wal or -journal already there, left by a store that was moved away without it: SQLite
    /// would replay it into the new store. Before: every command below created the store beside it (exit 0).
    @Test func aNewStoreBesideALeftoverLogOrJournalIsRefused() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        try #require(try r.vein(["export", "b.vein", "--key-file", "k", "-o", "e.json"]).status == 0)
        try #require(try r.vein(["create", "p.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let commands = [["create", "n.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"],
                        ["import", "n.vein", "e.json", "--create", "--schema", VeinRunner.exampleManifest, "--key-file", "n.key"],
                        ["backup", "b.vein", "n.vein", "--key-file", "k"], ["decrypt", "b.vein", "n.vein", "--key-file", "k"],
                        ["encrypt", "p.vein", "n.vein", "--key-file", "n.key"]]
        for (suffix, role) in [("-wal", "write-ahead log"), ("-journal", "rollback journal")] {
            try r.write("n.vein" + suffix, "left behind")
            for command in commands {
                let result = try r.vein(command)
                #expect(result.status == 73, "\(command): \(result.stderr)")
                #expect(result.stderr == "vein: error: refusing to create n.vein: n.vein\(suffix) is already there, a \(role) left by another "
                        + "database, and SQLite would replay it into the new store\n"
                        + "hint: nothing was written; move n.vein\(suffix) away (it may hold the last commits of a store that was moved "
                        + "or deleted), or choose another path\n")
                #expect(!r.exists("n.vein") && !r.exists("n.key"), "\(command)")
                #expect(try String(contentsOfFile: r.path("n.vein" + suffix), encoding: .utf8) == "left behind")
            }
            unlink(r.path("n.vein" + suffix))
        }
    }

    /// Standard error into the store or its key file (`2>> k`): every message would be appended to it, and a
    /// raw key followed by a line of text is read as a passphrase (the store then says "wrong key"). vein
    /// exits 73 before writing anything there, and does nothing. Before: `export -o` exited 0 and the key
    /// file held "exported 2 records …" after the key.
    @Test func standardErrorIntoAFileNamedOnTheCommandLine() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        try Self.leaveWAL(r)
        try r.write("blog.json5", try String(contentsOfFile: VeinRunner.exampleManifest, encoding: .utf8))
        for (command, target) in [("export b.vein --key-file k -o out.json", "k"), ("export b.vein --key-file k -o out.json", "hard"),
                                  ("export b.vein --key-file k -o out.json", "wal-link"),
                                  ("query b.vein 'count Post' --key-file k --no-such-option", "k"),
                                  ("query b.vein 'count Post' --key-file k", "k.pending"),
                                  ("create n.vein --schema blog.json5 --plaintext", "blog.json5")] {
            if target == "k.pending" { try r.write("k.pending", "", mode: 0o600) }
            let before = try Data(contentsOf: URL(fileURLWithPath: r.path(target)))
            let result = try r.run("/bin/sh", ["-c", "\"$0\" \(command) 2>> \(target)", VeinRunner.binary])
            #expect(result.status == 73, "\(command) 2>> \(target)")
            #expect(result.stdout.isEmpty && result.stderr.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: r.path(target))) == before, "\(command) 2>> \(target)")
            #expect(!r.exists("out.json") && !r.exists("n.vein"))
            unlink(r.path("k.pending"))
        }
        // Elsewhere, messages go to standard error as ever.
        let logged = try r.run("/bin/sh", ["-c", "\"$0\" export b.vein --key-file k -o out.json 2>> log.txt", VeinRunner.binary])
        #expect(logged.status == 0)
        #expect(try String(contentsOfFile: r.path("log.txt"), encoding: .utf8) == "exported 2 records (Attachment 0, Post 2) to out.json\n")
    }

    // MARK: Existing files that may hold data: --force

    /// Files a JSON export must not replace unasked, with the reason given; each is replaced with --force.
    static func valuables(_ r: VeinRunner) throws -> [(name: String, reason: String)] {
        var random = [UInt8](repeating: 0, count: 2048)
        for i in random.indices { random[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        FileManager.default.createFile(atPath: r.path("random.bin"), contents: Data(random))
        for name in ["other.vein", "plain.vein"] { unlink(r.path(name)) }
        try #require(try r.vein(["create", "other.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "other.key"]).status == 0)
        try #require(try r.vein(["create", "plain.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let binary = "it holds binary data, not UTF-8 text (an encrypted store looks like this)"
        return [("random.bin", binary), ("other.vein", binary), ("plain.vein", "it is a SQLite database"),
                ("other.key", "it holds a raw key (64 hex digits)")]
    }

    @Test func exportReplacesWhatMayHoldDataOnlyWithForce() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        let expected = try r.vein(["export", "b.vein", "--key-file", "k"]).stdout
        let valuables = try Self.valuables(r)
        // A key file given to the command that the (plaintext) store did not need.
        try r.write("pass.key", "a long passphrase here\n", mode: 0o600)
        let unused = try r.vein(["export", "plain.vein", "--key-file", "pass.key", "-o", "pass.key"])
        #expect(unused.status == 73)
        #expect(unused.stderr == "vein: error: refusing to replace pass.key: it is a key file given to this command\n" + Self.forceHint)
        #expect(try String(contentsOfFile: r.path("pass.key"), encoding: .utf8) == "a long passphrase here\n")
        for (name, reason) in valuables {
            let before = try Data(contentsOf: URL(fileURLWithPath: r.path(name)))
            let refused = try r.vein(["export", "b.vein", "--key-file", "k", "-o", name])
            #expect(refused.status == 73, "\(name)")
            #expect(refused.stderr == "vein: error: refusing to replace \(name): \(reason)\n" + Self.forceHint)
            #expect(try Data(contentsOf: URL(fileURLWithPath: r.path(name))) == before, "\(name) unchanged")
            let forced = try r.vein(["export", "b.vein", "--key-file", "k", "-o", name, "--force", "-q"])
            #expect(forced.status == 0, "\(name): \(forced.stderr)")
            #expect(try String(contentsOfFile: r.path(name), encoding: .utf8) == expected)
        }
        // Text is replaced as before, and --force is for -o only.
        try r.write("old.json", "{\"old\": true}\n")
        #expect(try r.vein(["export", "b.vein", "--key-file", "k", "-o", "old.json", "-q"]).status == 0)
        #expect(try String(contentsOfFile: r.path("old.json"), encoding: .utf8) == expected)
        let forceAlone = try r.vein(["export", "b.vein", "--key-file", "k", "--force"])
        #expect(forceAlone.status == 64)
        #expect(forceAlone.stderr == "vein: error: --force goes with -o FILE\nhint: see 'vein help export'\n")
    }

    @Test func replOutputReplacesWhatMayHoldDataOnlyWithForce() throws {
        let r = try Self.fixture()
        defer { r.cleanUp() }
        for (name, reason) in try Self.valuables(r) {
            let before = try Data(contentsOf: URL(fileURLWithPath: r.path(name)))
            let refused = try r.vein(["repl", "b.vein", "--key-file", "k"], stdin: ".output \(name)\ncount Post\n")
            #expect(refused.status == 73, "\(name)")
            #expect(refused.stderr == "vein: error: line 1: refusing to replace \(name): \(reason)\n" + Self.forceHint)
            #expect(try Data(contentsOf: URL(fileURLWithPath: r.path(name))) == before, "\(name) unchanged")
            let forced = try r.vein(["repl", "b.vein", "--key-file", "k"], stdin: ".output --force \(name)\ncount Post\n")
            #expect(forced.status == 0, "\(name): \(forced.stderr)")
            #expect(try String(contentsOfFile: r.path(name), encoding: .utf8) == "2\n")
        }
        // Text is replaced as before.
        try r.write("notes.txt", "old notes\n")
        let result = try r.vein(["repl", "b.vein", "--key-file", "k"], stdin: ".output notes.txt\ncount Post\n")
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: r.path("notes.txt"), encoding: .utf8) == "2\n")
        let bare = try r.vein(["repl", "b.vein", "--key-file", "k"], stdin: ".output --force\n")
        #expect(bare.status == 65)
        #expect(bare.stderr == "vein: error: line 1: .output --force needs a file\nhint: usage: .output [--force] [FILE]\n")
    }
}

/// A script keeps no history, but the --history it names is checked as a session's is. Before: `vein repl
/// b.vein --history b.vein < script` ran and exited 0, where the same command at a terminal was refused.
@Suite struct ScriptHistoryOptionTests {
    @Test func aScriptsHistoryFileIsCheckedAsASessionsIs() throws {
        let r = try WritePathSafetyTests.fixture()
        defer { r.cleanUp() }
        let before = try WritePathSafetyTests.state(r)
        let refused = try r.vein(["repl", "b.vein", "--key-file", "k", "--history", "b.vein"], stdin: "count Post\n")
        #expect(refused.status == 73)
        #expect(refused.stderr == "vein: error: refusing to write b.vein: " + WritePathSafetyTests.destroysStore
                + "\nhint: nothing was written; choose another file\n")
        #expect(refused.stdout == "")
        #expect(try WritePathSafetyTests.state(r) == before)
        let allowed = try r.vein(["repl", "b.vein", "--key-file", "k", "--history", "h.txt"], stdin: "count Post\n")
        #expect(allowed.status == 0 && allowed.stdout == "2\n")
        #expect(!r.exists("h.txt"))
    }
}

/// `vein repl --history FILE` in a terminal (the only place history is used): readline reads FILE before the
/// first prompt and rewrites it on the way out, so FILE is checked before either, and refused with exit 73
/// before the first prompt.
@Suite(.serialized) struct HistoryFileSafetyTests {
    static let banner = "'.help' lists the commands"

    /// Starts `vein repl` with `extra` options and returns the exit status and the screen once it ended.
    func refusedSession(_ r: VeinRunner, _ store: String, _ extra: [String], environment: [String: String] = [:]) throws -> (Int?, String) {
        let tmux = try TmuxSession(r, ["repl", store] + extra, environment: environment)
        defer { tmux.kill() }
        let status = try tmux.exitStatus()
        return (status, try tmux.screen())
    }

    @Test func theStoreItsLinksItsLogAndItsKeyAreRefusedBeforeTheFirstPrompt() throws {
        let r = try WritePathSafetyTests.fixture()
        defer { r.cleanUp() }
        let before = try WritePathSafetyTests.state(r)
        for (name, reason) in WritePathSafetyTests.targets {
            try WritePathSafetyTests.leaveWAL(r)
            let (status, screen) = try refusedSession(r, "b.vein", ["--key-file", "k", "--history", name])
            #expect(status == 73, "\(name): \(screen)")
            #expect(screen.contains("vein: error: refusing to write \(name): \(reason)\n" + WritePathSafetyTests.refusedHint), "\(screen)")
            #expect(!screen.contains(Self.banner), "refused before the first prompt")
            #expect(try WritePathSafetyTests.state(r) == before, "\(name)")
        }
        // A plaintext store's history file, moved onto the store by VEIN_HISTORY.
        #expect(try r.vein(["create", "p.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let plain = try Data(contentsOf: URL(fileURLWithPath: r.path("p.vein")))
        let (status, screen) = try refusedSession(r, "p.vein", [], environment: ["VEIN_HISTORY": r.path("p.vein")])
        #expect(status == 73, "\(screen)")
        #expect(screen.contains("refusing to write \(r.path("p.vein")): it is the store p.vein, and writing over it would destroy the store"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("p.vein"))) == plain)
    }

    /// Before: the session ran, and only on the way out said it could not write the history (exit 0).
    @Test func anUnwritableHistoryFileIsRefusedBeforeTheFirstPrompt() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try FileManager.default.createDirectory(atPath: r.path("hdir"), withIntermediateDirectories: false)
        for (file, message) in [("hdir", "cannot write hdir: it is a directory"),
                                ("none/h", "cannot write none/h: directory \(r.path("none")) does not exist"),
                                ("/proc/sys/kernel/osrelease", "cannot write /proc/sys/kernel/osrelease: Permission denied")] {
            let (status, screen) = try refusedSession(r, "b.vein", ["--key-file", "k", "--history", file])
            #expect(status == 73, "\(file): \(screen)")
            #expect(screen.contains("vein: error: \(message)\n"), "\(screen)")
            #expect(!screen.contains(Self.banner))
        }
    }

    /// ~/.vein_history is used without being asked for (a plaintext store, no --history, no VEIN_HISTORY): when
    /// vein cannot or may not write it, the session keeps history in memory and says so once. Before: exit 73
    /// before the first prompt, with no way in but to name another file.
    @Test func aDefaultHistoryFileThatCannotBeWrittenLeavesHistoryInMemory() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        #expect(try r.vein(["create", "p.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let plain = try Data(contentsOf: URL(fileURLWithPath: r.path("p.vein")))
        let gone = r.path("gone")
        try #require(link(r.path("p.vein"), r.path(".vein_history")) == 0)
        let remedy = "; history is kept in memory only (VEIN_HISTORY=FILE keeps it elsewhere)\n"
        for (home, warning) in [(gone, "cannot write \(gone)/.vein_history: directory \(gone) does not exist"),
                                (r.directory.path, "refusing to write \(r.path(".vein_history")): it is the store p.vein, and writing over it would destroy the store")] {
            let session = try TmuxSession(r, ["repl", "p.vein"], environment: ["HOME": home])
            defer { session.kill() }
            let screen = try session.waitFor("p.vein> ")
            #expect(screen.contains("vein: warning: " + warning + remedy), "\(screen)")
            #expect(screen.contains(", plaintext, history in memory only. '.help' lists the commands."), "\(screen)")
            try session.type("count Post")
            try session.press("Enter")
            try session.waitFor("0\np.vein> ")
            try session.press("C-d")
            #expect(try session.exitStatus() == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("p.vein"))) == plain)
        }
        #expect(!FileManager.default.fileExists(atPath: gone))
        // Named by VEIN_HISTORY, the same file is refused before the first prompt.
        let (status, screen) = try refusedSession(r, "p.vein", [], environment: ["HOME": gone, "VEIN_HISTORY": gone + "/.vein_history"])
        #expect(status == 73, "\(screen)")
        #expect(screen.contains("vein: error: cannot write \(gone)/.vein_history: directory \(gone) does not exist\n"), "\(screen)")
        #expect(!screen.contains(Self.banner))
    }

    /// History is written when the session ends, long after the file was checked: it is checked again then.
    /// Before: a history file replaced meanwhile by a symbolic link to the store was written over the store
    /// (readline follows the link), and the store was 11 bytes of history.
    @Test func theHistoryFileIsCheckedAgainWhenItIsWritten() throws {
        let r = try WritePathSafetyTests.fixture()
        defer { r.cleanUp() }
        let before = try WritePathSafetyTests.state(r)
        let session = try TmuxSession(r, ["repl", "b.vein", "--key-file", "k", "--history", "h.txt"])
        defer { session.kill() }
        try session.waitFor("b.vein> ")
        try session.type("count Post")
        try session.press("Enter")
        try session.waitFor("2\nb.vein> ")
        unlink(r.path("h.txt"))
        try #require(symlink("b.vein", r.path("h.txt")) == 0)
        try session.press("C-d")
        // Before: the refusal was printed and the session exited 0.
        #expect(try session.exitStatus() == 73)
        let screen = try session.screen()
        #expect(screen.contains("vein: error: refusing to write h.txt: " + WritePathSafetyTests.destroysStore + "\n"), "\(screen)")
        #expect(try WritePathSafetyTests.state(r) == before)
    }

    @Test func aHistoryFileThatIsNotTextIsUsedOnlyWithForce() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let binary = Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 128) })
        try binary.write(to: URL(fileURLWithPath: r.path("h.bin")))
        let (status, screen) = try refusedSession(r, "b.vein", ["--key-file", "k", "--history", "h.bin"])
        #expect(status == 73, "\(screen)")
        #expect(screen.contains("vein: error: refusing to replace h.bin: it holds binary data, not UTF-8 text (an encrypted store looks like this)\n"
                                + WritePathSafetyTests.forceHint), "\(screen)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("h.bin"))) == binary)

        let forced = try TmuxSession(r, ["repl", "b.vein", "--key-file", "k", "--history", "h.bin", "--force"])
        defer { forced.kill() }
        try forced.waitFor("b.vein> ")
        try forced.type("count Post")
        try forced.press("Enter")
        try forced.waitFor("0\nb.vein> ")
        try forced.press("C-d")
        #expect(try forced.exitStatus() == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("h.bin"))).range(of: Data("count Post".utf8)) != nil)
    }
}
