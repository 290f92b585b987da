import Foundation
import Testing
import Vein

/// `vein encrypt`, `vein decrypt` and `vein backup` end to end.
@Suite struct CopyCommandTests {
    @Test func encryptAndDecryptKeepEveryRowTheMetaAndTheHeader() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "p.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        for i in 0..<25 { try #require(try r.vein(["query", "p.vein", "insert Post(title: \"ü \(i)\", content: \"c\")"]).status == 0) }
        _ = try r.run("/usr/bin/sqlite3", ["p.vein", "PRAGMA user_version = 7"])
        let encrypted = try r.vein(["encrypt", "p.vein", "e.vein", "--key-file", "e.key"])
        #expect(encrypted.status == 0 && encrypted.stderr.contains("wrote encrypted copy e.vein: 25 rows"), "\(encrypted.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("e.vein"))).prefix(6) != Data("SQLite".utf8))
        #expect(try r.vein(["decrypt", "e.vein", "d.vein", "--key-file", "e.key"]).status == 0)
        let original = try r.vein(["export", "p.vein"]).stdout
        #expect(try r.vein(["export", "e.vein", "--key-file", "e.key"]).stdout == original)
        #expect(try r.vein(["export", "d.vein"]).stdout == original)
        let meta = "SELECT key, value FROM _vein_meta ORDER BY key; SELECT * FROM _vein_migrations; PRAGMA user_version;"
        #expect(try r.run("/usr/bin/sqlite3", ["d.vein", meta]).stdout == r.run("/usr/bin/sqlite3", ["p.vein", meta]).stdout)
        // A copy is a store like any other: in WAL mode (it is filled without a journal, then switched back).
        #expect(try r.run("/usr/bin/sqlite3", ["d.vein", "PRAGMA journal_mode"]).stdout == "wal\n")
        #expect(try r.vein(["verify", "e.vein", "--key-file", "e.key", "-q"]).status == 0)
        // Nothing is ever overwritten; the wrong direction is refused with a hint.
        let exists = try r.vein(["decrypt", "e.vein", "d.vein", "--key-file", "e.key"])
        #expect(exists.status == 73 && exists.stderr.contains("d.vein already exists"))
        let plain = try r.vein(["decrypt", "p.vein", "x.vein"])
        #expect(plain.status == 65 && plain.stderr.contains("p.vein is not encrypted"))
        let newKey = try r.vein(["backup", "p.vein", "x.vein", "--new-key"])
        #expect(newKey.status == 64 && newKey.stderr.contains("p.vein is not encrypted; --new-key needs an encrypted store"))
        let twice = try r.vein(["encrypt", "e.vein", "x.vein"])
        #expect(twice.status == 65 && twice.stderr.contains("e.vein is already encrypted"))
        #expect(try r.vein(["decrypt", "e.vein", "x.vein", "--key-file", "nope"]).status != 0)
        #expect(!r.exists("x.vein"))
        try r.write("wrong", String(repeating: "cd", count: 32) + "\n", mode: 0o600)
        #expect(try r.vein(["decrypt", "e.vein", "x.vein", "--key-file", "wrong"]).status == 77)
        #expect(!r.exists("x.vein"))
    }

    /// Backups taken while another process inserts posts 1, 2, 3, …: each verifies and holds exactly
    /// posts 1…k for some k (a consistent prefix of the writes).
    @Test func backupUnderConcurrentWritesHoldsAConsistentPrefix() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try #require(try r.vein(["create", "s.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "k"]).status == 0)
        let result = try r.run("/bin/sh", ["-c", """
            ( i=1; while [ $i -le 60 ]; do "$0" query s.vein "insert Post(title: \\"$i\\", content: \\"c\\")" --key-file k >/dev/null || exit 1; i=$((i+1)); done ) &
            writer=$!
            n=0; while [ $n -lt 6 ]; do "$0" backup s.vein b$n.vein --key-file k || echo "backup $n failed"; n=$((n+1)); done
            wait $writer; echo "writer $?"
            """, VeinRunner.binary])
        #expect(result.stdout.contains("writer 0") && !result.stdout.contains("failed"), "\(result.stdout) \(result.stderr)")
        for n in 0..<6 {
            #expect(try r.vein(["verify", "b\(n).vein", "--key-file", "k", "-q"]).status == 0)
            let store = try Store.open(r.path("b\(n).vein"), keys: KeyOptions(keyFile: r.path("k"), keyring: nil))
            let titles = try store.database.rows("SELECT title FROM Post").compactMap { $0[0].string.flatMap { Int($0) } }.sorted()
            #expect(titles == (0..<titles.count).map { $0 + 1 }, "backup \(n): \(titles)")
        }
    }

    /// With the real keyring: a backup of a keyring-keyed store opens through the keyring, and --new-key
    /// gives a backup its own key there.
    @Test func backupKeysInTheKeyring() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let vein = VeinRunner.binary
        let result = try r.run(VeinRunner.withSecretService, ["bash", "-c", """
            set -e
            '\(vein)' create s.vein --schema '\(VeinRunner.exampleManifest)' -q
            '\(vein)' query s.vein 'insert Post(title: "t", content: "c")' > /dev/null
            '\(vein)' backup s.vein same.vein --json | grep -o '"keySource": "[a-z-]*"'
            '\(vein)' backup s.vein fresh.vein --new-key
            '\(vein)' query same.vein 'count Post'
            '\(vein)' query fresh.vein 'count Post'
            test "$(secret-tool lookup store "$(realpath same.vein)" state current)" = "$(secret-tool lookup store "$(realpath s.vein)" state current)" && echo same-key
            test "$(secret-tool lookup store "$(realpath fresh.vein)" state current)" != "$(secret-tool lookup store "$(realpath s.vein)" state current)" && echo new-key
            """])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\"keySource\": \"keyring\"\n1\n1\nsame-key\nnew-key\n", "\(result.stdout)")
    }
}
