import Foundation
import Testing
import Vein

/// `vein create`, `info`, `schema` and `verify` driven through the built binary: results, messages and
/// exit statuses as a user or a script sees them.
@Suite struct StoreCommandsTests {
    let manifest = VeinRunner.exampleManifest

    @Test func createInfoSchemaVerifyWithAKeyFile() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let created = try r.vein(["create", "blog.vein", "--schema", manifest, "--key-file", "blog.key"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "created blog.vein: com.example.blog 0.0.1, 2 models, encrypted, new key in the key file blog.key\n")
        let keyAttributes = try FileManager.default.attributesOfItem(atPath: r.path("blog.key"))
        #expect((keyAttributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: r.path("blog.key"), encoding: .utf8).count == 65)

        let info = try r.vein(["info", "blog.vein", "--key-file", "blog.key"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("app         com.example.blog\n"))
        #expect(info.stdout.contains("encryption  SQLCipher 3.4.1, AES-256-CBC, 4096-byte pages, raw 256-bit key\n"))
        #expect(info.stdout.contains("key source  key file blog.key\n"))
        #expect(info.stdout.hasSuffix("models\n  Post        0 rows\n  Attachment  0 rows\n"))

        let schema = try r.vein(["schema", "blog.vein", "--key-file", "blog.key"])
        #expect(schema.status == 0)
        #expect(schema.stdout.contains("  attachments  → [Attachment] inverse post, on delete cascade\n"))

        let verify = try r.vein(["verify", "blog.vein", "--key-file", "blog.key"])
        #expect(verify.status == 0)
        #expect(verify.stdout == "integrity      ok\nschema         ok\nvalues         ok\nrelationships  ok\n")
    }

    @Test func jsonOutputsAreMachineReadable() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let created = try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k", "--json"])
        let createJSON = try JSONParser.parse(created.stdout).objectValue
        #expect(createJSON?["generatedKey"] == .bool(true))
        #expect(createJSON?["keySource"] == .string("key-file"))

        let info = try JSONParser.parse(try r.vein(["info", "s.vein", "--key-file", "k", "--json"]).stdout).objectValue
        #expect(info?["schemaVersion"] == .string("0.0.1"))
        #expect(info?["encrypted"] == .bool(true))
        #expect(info?["cipher"]?.objectValue?["pageSize"] == .int(4096))
        #expect(info?["models"] == .array([
            .object(JSONObject([("name", .string("Post")), ("rows", .int(0))])),
            .object(JSONObject([("name", .string("Attachment")), ("rows", .int(0))])),
        ]))

        // The schema's JSON is a manifest that creates an identical schema.
        let schemaJSON = try r.vein(["schema", "s.vein", "--key-file", "k", "--json"]).stdout
        try r.write("again.json", schemaJSON)
        #expect(try r.vein(["create", "again.vein", "--schema", "again.json", "--plaintext"]).status == 0)
        #expect(try r.vein(["schema", "again.vein", "--json"]).stdout == schemaJSON)

        let verify = try JSONParser.parse(try r.vein(["verify", "s.vein", "--key-file", "k", "--json"]).stdout).objectValue
        #expect(verify?["ok"] == .bool(true))
    }

    @Test func encryptedStoreIsEncryptedAndTheSqlcipherShellReadsIt() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k"]).status == 0)
        let header = try #require(FileHandle(forReadingAtPath: r.path("s.vein"))).readData(ofLength: 16)
        #expect(header != Data("SQLite format 3\0".utf8))
        let key = try String(contentsOfFile: r.path("k"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let shell = try r.run("sqlcipher", ["s.vein"], stdin: """
            PRAGMA key = "x'\(key)'";
            PRAGMA cipher_page_size = 4096;
            SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name;
            SELECT value FROM _vein_meta WHERE key = 'schemaVersion';
            """)
        #expect(shell.stdout == "Attachment\nPost\n_vein_meta\n_vein_migrations\n0.0.1\n", "\(shell.stderr)")
        // Without the key the shell cannot read it.
        let locked = try r.run("sqlcipher", ["s.vein", "SELECT count(*) FROM sqlite_master"])
        #expect(locked.status != 0)
    }

    @Test func plaintextStoreOpensInTheSqlite3Shell() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let created = try r.vein(["create", "p.vein", "--schema", manifest, "--plaintext"])
        #expect(created.stdout.hasSuffix("not encrypted\n"))
        let header = try #require(FileHandle(forReadingAtPath: r.path("p.vein"))).readData(ofLength: 16)
        #expect(header == Data("SQLite format 3\0".utf8))
        let shell = try r.run("sqlite3", ["p.vein", "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"])
        #expect(shell.stdout == "Attachment\nPost\n_vein_meta\n_vein_migrations\n")
        let info = try r.vein(["info", "p.vein"])
        #expect(info.stdout.contains("encryption  none (plaintext)\n"))
    }

    @Test func keyFromEnvironmentAndPassphrase() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let hex = String(repeating: "ab", count: 32)
        #expect(try r.vein(["create", "e.vein", "--schema", manifest, "--key-env", "MY_KEY"], environment: ["MY_KEY": hex]).status == 0)
        #expect(try r.vein(["info", "e.vein"], environment: ["VEIN_KEY": hex]).stdout.contains("key source  environment variable VEIN_KEY"))
        #expect(try r.vein(["info", "e.vein", "--key-env", "MY_KEY"], environment: ["MY_KEY": hex]).status == 0)

        // --passphrase reads one line from standard input when it is not a terminal.
        #expect(try r.vein(["create", "p.vein", "--schema", manifest, "--passphrase"], stdin: "correct horse\n").status == 0)
        let info = try r.vein(["info", "p.vein", "--passphrase"], stdin: "correct horse\n")
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("passphrase (PBKDF2), 64000 KDF iterations"))
        let wrong = try r.vein(["info", "p.vein", "--passphrase"], stdin: "wrong horse\n")
        #expect(wrong.status == 77)
    }

    // MARK: Errors: message and exit status

    @Test func badManifestExits65WithFileAndPath() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("bad.json5", """
            { vein: 1, app: "a", version: "0.0.1",
              models: { Post: { fields: { views: "integer", title: "string" },
                                relationships: { author: { to: "Usr" } } } } }
            """)
        let result = try r.vein(["create", "s.vein", "--schema", "bad.json5"])
        #expect(result.status == 65)
        #expect(result.stderr == """
            vein: error: bad.json5: models.Post.fields.views: unknown type "integer" (expected one of string, int, double, bool, date, data, uuid, enum, json) (did you mean "int"?)
            vein: error: bad.json5: models.Post.relationships.author.to: relationship target "Usr" is not a model of this schema

            """)
        #expect(!r.exists("s.vein"))

        try r.write("syntax.json5", "{ vein: 1,\n  app: \"a\" \"b\" }")
        let syntax = try r.vein(["create", "s.vein", "--schema", "syntax.json5"])
        #expect(syntax.status == 65)
        #expect(syntax.stderr == "vein: error: syntax.json5:2:12: expected ',' or '}' after an object member, found '\"'\n")
    }

    @Test func missingInputsExit66() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let manifestMissing = try r.vein(["create", "s.vein", "--schema", "nope.json5", "--plaintext"])
        #expect(manifestMissing.status == 66)
        #expect(manifestMissing.stderr == "vein: error: no such file: nope.json5\n")
        let storeMissing = try r.vein(["info", "nope.vein"])
        #expect(storeMissing.status == 66)
        #expect(storeMissing.stderr == "vein: error: no such store: nope.vein\nhint: create one with 'vein create nope.vein --schema MANIFEST'\n")
        #expect(!r.exists("nope.vein"), "opening a missing store must not create it")
    }

    @Test func existingStoreExits73AndIsUntouched() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--plaintext"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein")))
        let again = try r.vein(["create", "s.vein", "--schema", manifest, "--plaintext"])
        #expect(again.status == 73)
        #expect(again.stderr == "vein: error: s.vein already exists\nhint: vein never overwrites a store; choose another path\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein"))) == before)

        let noDirectory = try r.vein(["create", "missing/dir/s.vein", "--schema", manifest, "--plaintext"])
        #expect(noDirectory.status == 73)
        #expect(noDirectory.stderr == "vein: error: cannot create missing/dir/s.vein: its directory does not exist\n")
    }

    @Test func wrongKeyExits77AndWritesNothing() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein")))
        let wrong = try r.vein(["info", "s.vein"], environment: ["VEIN_KEY": String(repeating: "0", count: 64)])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.hasPrefix("vein: error: cannot decrypt s.vein with the key from environment variable VEIN_KEY: wrong key or not a Vein store\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein"))) == before)
        #expect(!r.exists("s.vein-wal"))

        try r.write("open.key", String(repeating: "0", count: 64), mode: 0o644)
        let open = try r.vein(["info", "s.vein", "--key-file", "open.key"])
        #expect(open.status == 78)
        #expect(open.stderr == "vein: error: key file open.key is accessible by others (mode 644)\nhint: restrict it with 'chmod 600 open.key'\n")

        // Random bytes are what an encrypted store looks like: with a key that does not open them, the same message.
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: r.path("random.vein")))
        #expect(try r.vein(["info", "random.vein", "--key-file", "k"]).status == 77)
        // Text is no store under any key: it is named for what it is (before: "wrong key", 77).
        try r.write("junk.vein", String(repeating: "junk", count: 2000))
        let junk = try r.vein(["info", "junk.vein", "--key-file", "k"])
        #expect(junk.status == 65)
        #expect(junk.stderr == "vein: error: junk.vein is a text file, not a store\n")
    }

    @Test func damagedOrForeignFilesAreNotVeinStores() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        // SQLite's plaintext header over garbage.
        var bytes = Data("SQLite format 3\0".utf8)
        bytes.append(Data(repeating: 0xEE, count: 4080))
        try bytes.write(to: URL(fileURLWithPath: r.path("damaged.vein")))
        let damaged = try r.vein(["info", "damaged.vein"])
        #expect(damaged.status == 65)
        #expect(damaged.stderr.hasPrefix("vein: error: damaged.vein is not a Vein store: "))
        // A plain SQLite database that Vein did not make.
        _ = try r.run("sqlite3", ["other.db", "CREATE TABLE t (x)"])
        let foreign = try r.vein(["info", "other.db"])
        #expect(foreign.status == 65)
        #expect(foreign.stderr == "vein: error: other.db is not a Vein store: it has no _vein_meta table\n")
    }

    @Test func noKeySourceExits69AndCreatesNothing() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let create = try r.vein(["create", "s.vein", "--schema", manifest])
        #expect(create.status == 69)
        #expect(create.stderr.hasPrefix("vein: error: no key for \(try FileSystem.realPath(r.path("s.vein"))) (the Secret Service is not available: "))
        #expect(create.stderr.contains("hint: give a key with --key-file FILE, --key-env VAR, the VEIN_KEY environment variable or --passphrase, or keep it in the Secret Service keyring"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: r.directory.path).isEmpty, "no store, key or temporary file may remain")

        try #require(try r.vein(["create", "s.vein", "--schema", manifest, "--key-file", "k"]).status == 0)
        let info = try r.vein(["info", "s.vein"])
        #expect(info.status == 69)
        let unset = try r.vein(["info", "s.vein", "--key-env", "NOT_SET_ANYWHERE"])
        #expect(unset.status == 69)
        #expect(unset.stderr == "vein: error: environment variable NOT_SET_ANYWHERE (named by --key-env) is not set or empty\n")
    }

    @Test func usageErrorsExit64WithAHint() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let unknown = try r.vein(["crate"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "vein: error: unknown command 'crate' (did you mean 'create'?)\nhint: see 'vein help'\n")
        let option = try r.vein(["info", "s.vein", "--jsn"])
        #expect(option.status == 64)
        #expect(option.stderr == "vein: error: unknown option --jsn (did you mean --json?)\nhint: see 'vein help info'\n")
        let missing = try r.vein(["create", "s.vein"])
        #expect(missing.status == 64)
        #expect(missing.stderr == "vein: error: missing --schema MANIFEST\nhint: see 'vein help create'\n")
        let conflict = try r.vein(["create", "s.vein", "--schema", manifest, "--plaintext", "--key-file", "k"])
        #expect(conflict.status == 64)
        #expect(try r.vein(["info"]).status == 64)
        #expect(try r.vein(["completions", "tcsh"]).status == 64)
    }

    @Test func verifyReportsDamageWithExit65() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "p.vein", "--schema", manifest, "--plaintext"]).status == 0)
        let id = ULID.make().description
        _ = try r.run("sqlite3", ["p.vein", "INSERT INTO Attachment (_id, name, fileType, sizeMiB, post) VALUES ('\(id)', 'a.png', 'png', 0.5, '01ARZ3NDEKTSV4RRFFQ69G5FAV')"])
        let verify = try r.vein(["verify", "p.vein"])
        #expect(verify.status == 65)
        #expect(verify.stdout.contains("relationships  1 problem\n  Attachment.post: 1 row points to Post rows that do not exist (\(id))\n"))
        #expect(verify.stderr == "vein: error: p.vein failed verification (1 problem)\n")
    }
}

/// Findings of the first review, kept as tests.
@Suite struct StoreCommandsReviewTests {
    @Test func readCommandsLeaveOneFile() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "k"]).status == 0)
        for command in ["info", "schema", "verify"] {
            #expect(try r.vein([command, "s.vein", "--key-file", "k"]).status == 0)
            #expect(!r.exists("s.vein-wal") && !r.exists("s.vein-shm"), "\(command) left -wal/-shm files")
        }
    }

    @Test func concurrentCreatesNeverLoseTheWinnersKey() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let result = try r.run("/bin/bash", ["-c", """
            for i in $(seq 12); do
              '\(VeinRunner.binary)' create r$i.vein --schema '\(VeinRunner.exampleManifest)' --key-file k$i --quiet 2>/dev/null &
              '\(VeinRunner.binary)' create r$i.vein --schema '\(VeinRunner.exampleManifest)' --key-file k$i --quiet 2>/dev/null
              wait
              '\(VeinRunner.binary)' info r$i.vein --key-file k$i >/dev/null || echo "lost $i"
            done
            """])
        #expect(result.stdout == "", "stores whose key was lost: \(result.stdout)")
    }

    @Test func directoriesAndEmptyFilesAreNotStores() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try FileManager.default.createDirectory(atPath: r.path("dir"), withIntermediateDirectories: true)
        try r.write("empty.vein", "")
        let dir = try r.vein(["info", "dir"])
        #expect(dir.status == 66)
        #expect(dir.stderr == "vein: error: cannot open dir: it is a directory\n")
        let empty = try r.vein(["info", "empty.vein"])
        #expect(empty.stderr == "vein: error: empty.vein is not a Vein store: it is empty\n")
    }

    @Test func keysNeverReachMessages() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("nul.key", "abc\u{0}def-secret", mode: 0o600)
        let result = try r.vein(["create", "s.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "nul.key"])
        #expect(result.status == 65)
        #expect(!result.stderr.contains("secret") && !result.stderr.contains("abc"))
        #expect(!r.exists("s.vein"))
    }

    @Test func requiredOptionIsShownAsRequired() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let help = try r.vein(["help", "create"])
        #expect(help.stdout.contains("Usage: vein create STORE --schema MANIFEST [--plaintext]"))
    }

    /// Store format 1 (to-many as JSON arrays) was never released: refused by name with exit 65, not read
    /// as format 2.
    @Test func formatOneStoreIsRefused() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        #expect(try r.vein(["create", "old.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let holder = try Database(path: r.path("old.vein"), key: nil)
        try holder.execute(#"UPDATE "_vein_meta" SET "value" = '1' WHERE "key" = 'formatVersion'"#)
        try holder.close()
        let info = try r.vein(["info", "old.vein"])
        #expect(info.status == 65)
        #expect(info.stderr == "vein: error: old.vein uses store format 1, older than this vein (format 3); no released vein wrote it, "
                + "so it cannot be opened\nhint: recreate the store with this vein (export it with the vein that wrote it, then import)\n")
    }
}
