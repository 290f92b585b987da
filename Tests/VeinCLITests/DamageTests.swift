import Foundation
import Testing
import Vein

/// Stores damaged outside Vein, as a user meets them: cells rewritten by the sqlite3 shell, and files
/// with bytes flipped. Vein never answers with a value nobody stored; it says what is damaged (exit 65).
@Suite struct DamageTests {
    let manifest = VeinRunner.exampleManifest

    /// A plaintext blog store with one post; returns the post's id.
    func storeWithAPost(_ r: VeinRunner) throws -> String {
        #expect(try r.vein(["create", "s.vein", "--schema", manifest, "--plaintext"]).status == 0)
        let inserted = try r.vein(["query", "s.vein", #"insert Post(title: "a", content: "c", views: 3, publishedAt: #date("2026-01-01T00:00:00Z"))"#])
        #expect(inserted.status == 0, "\(inserted.stderr)")
        return try sqlite(r, "SELECT _id FROM Post").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    func sqlite(_ r: VeinRunner, _ sql: String) throws -> String {
        let result = try r.run("/usr/bin/sqlite3", ["s.vein", sql])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func cellsRewrittenByTheSQLiteShellAreRefusedNotInvented() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let id = try storeWithAPost(r)
        try sqlite(r, "UPDATE Post SET views = 'abc'")
        let hint = "hint: the store was changed outside Vein; 'vein verify' lists every such value: "
            + "restore a backup, or correct the value with the tool that wrote it\n"

        let export = try r.vein(["export", "s.vein", "-o", "out.json"])
        #expect(export.status == 65)
        #expect(export.stderr == "vein: error: Post \(id): views holds text \"abc\", which is not a value of type int\n" + hint)
        #expect(!r.exists("out.json"))
        let query = try r.vein(["query", "s.vein", "Post"])
        #expect(query.status == 65)
        #expect(query.stderr == "vein: error: Post \(id): views holds text \"abc\", which is not a value of type int\n" + hint)

        try sqlite(r, "UPDATE Post SET views = 3, publishedAt = 'yesterday'")
        let exportDate = try r.vein(["export", "s.vein"])
        #expect(exportDate.status == 65)
        #expect(!exportDate.stdout.contains("1970"))
        #expect(exportDate.stderr == "vein: error: Post \(id): publishedAt holds text \"yesterday\", which is not a value of type date\n" + hint)
        let json = try r.vein(["query", "s.vein", "Post", "--format", "json"])
        #expect(json.status == 65)
        #expect(json.stdout.isEmpty)

        try sqlite(r, "UPDATE Post SET views = 'abc'")
        let verify = try r.vein(["verify", "s.vein"])
        #expect(verify.status == 65)
        #expect(verify.stdout == """
            integrity      ok
            schema         ok
            values         2 problems
              Post.views: 1 value is not of type int (\(id))
              Post.publishedAt: 1 value is not of type date (\(id))
            relationships  ok

            """)
    }

    @Test func anEnumOutsideItsCasesIsRefused() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        _ = try storeWithAPost(r)
        let added = try r.vein(["query", "s.vein", #"insert Attachment(name: "a.png", fileType: .png, sizeMiB: 1.5)"#])
        #expect(added.status == 0, "\(added.stderr)")
        let id = try sqlite(r, "SELECT _id FROM Attachment").trimmingCharacters(in: .whitespacesAndNewlines)
        try sqlite(r, "PRAGMA ignore_check_constraints = ON; UPDATE Attachment SET fileType = 'bmp'")
        let query = try r.vein(["query", "s.vein", "count Attachment where name == \"a.png\""])
        #expect(query.stdout == "1\n")  // a count reads no cell
        let export = try r.vein(["export", "s.vein", "--model", "Attachment"])
        #expect(export.status == 65)
        #expect(export.stderr.hasPrefix("vein: error: Attachment \(id): fileType holds text \"bmp\", which is not a value of type enum\n"))
    }

    /// A store of 2,000 posts (about 270 pages), made by import; encrypted with a key file, or plaintext.
    func bigStore(_ r: VeinRunner, encrypted: Bool) throws {
        var posts: [String] = []
        for i in 0..<2_000 {
            let id = "01J" + String(repeating: "0", count: 23 - String(i).count) + String(i)
            posts.append(#"{"id":"\#(id)","title":"t\#(i)","content":"\#(String(repeating: "x", count: 400))","views":\#(i),"publishedAt":null,"attachments":[]}"#)
        }
        try r.write("big.json", #"{"vein":1,"app":"com.example.blog","schemaVersion":"0.0.1","models":{"Post":["#
            + posts.joined(separator: ",\n") + "],\"Attachment\":[]}}")
        let created = try r.vein(["import", "s.vein", "big.json", "--create", "--schema", manifest] + (encrypted ? ["--key-file", "k"] : ["--plaintext"]))
        #expect(created.status == 0, "\(created.stderr)")
    }

    /// Flips 64 bytes at `fraction` of the file, as a failing disk or a stray write would.
    func flipBytes(_ r: VeinRunner, at fraction: Double) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein"))))
        let start = Int(Double(bytes.count) * fraction)
        for i in start..<start + 64 { bytes[i] ^= 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: r.path("s.vein")))
    }

    static let damagedStore = "vein: error: the store is damaged: database disk image is malformed\n"
        + "hint: 'vein verify STORE' reports the damage; restore the store from a backup (made with 'vein backup')\n"

    /// Encrypted: every page is authenticated, so a flipped byte fails the page's HMAC check, which
    /// SQLCipher 3.4.1 reports to integrity_check as "SQL logic error" and to other reads as SQLITE_CORRUPT;
    /// verify says what that means (before, it quoted "SQL logic error or missing database").
    @Test(arguments: [(true, 0.1, "a page failed its authentication check: the file is damaged or was changed"),
                      (false, 0.5, "the file is damaged: SQLite could not read it (database disk image is malformed)")])
    func flippedBytesMidFileAreReportedAsDamage(encrypted: Bool, fraction: Double, finding: String) throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try bigStore(r, encrypted: encrypted)
        try flipBytes(r, at: fraction)
        let key = encrypted ? ["--key-file", "k"] : []

        let verify = try r.vein(["verify", "s.vein"] + key)
        #expect(verify.status == 65)
        #expect(verify.stdout == "integrity      1 problem\n  \(finding)\n")
        #expect(verify.stderr == "vein: error: s.vein failed verification (1 problem)\n")

        for command in [["query", "s.vein", "Post where views >= 0"], ["export", "s.vein", "-o", "out.json"], ["backup", "s.vein", "copy.vein"]] {
            let result = try r.vein(command + key)
            #expect(result.status == 65, "\(command)")
            #expect(result.stderr == Self.damagedStore, "\(command)")
        }
        #expect(!r.exists("out.json"))
        #expect(!r.exists("copy.vein"))
        // info reads page 1 and counts rows, which need not touch the damaged page; if it does, it says so.
        let info = try r.vein(["info", "s.vein"] + key)
        #expect(info.status == 0 || (info.status == 65 && info.stderr == Self.damagedStore))
    }

    /// Damage where the store's schema is kept stops it from opening. Before, verify then printed no
    /// report (nothing at all with --json) and its hint sent the person to `vein verify`.
    @Test(arguments: ["flipped", "truncated"])
    func damageThatStopsTheStoreOpeningIsVerifysReport(_ damage: String) throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try bigStore(r, encrypted: true)
        if damage == "flipped" {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein"))))
            for i in 8300..<8316 { bytes[i] ^= 0xFF }
            try Data(bytes).write(to: URL(fileURLWithPath: r.path("s.vein")))
        } else {
            #expect(truncate(r.path("s.vein"), 20_000) == 0)
        }
        let finding = "a page failed its authentication check: the file is damaged or was changed"
        let verify = try r.vein(["verify", "s.vein", "--key-file", "k"])
        #expect(verify.status == 65)
        #expect(verify.stdout == "integrity      1 problem\n  \(finding)\n")
        #expect(verify.stderr == "vein: error: s.vein failed verification (1 problem)\n")
        let json = try r.vein(["verify", "s.vein", "--key-file", "k", "--json"])
        #expect(json.status == 65)
        let report = try JSONParser.parse(json.stdout).objectValue
        #expect(report?["ok"] == .bool(false))
        #expect(json.stdout.contains(finding))
    }

    /// Every page after the damaged one fails too; the report names the first few, not a hundred lines.
    @Test func aLongIntegrityReportIsCut() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try bigStore(r, encrypted: true)
        try flipBytes(r, at: 0.99)
        let verify = try r.vein(["verify", "s.vein", "--key-file", "k"])
        #expect(verify.status == 65)
        let lines = verify.stdout.split(separator: "\n")
        // Pages that failed their HMAC check are one finding in those terms (before: a line per page,
        // "Page 253: unable to get the page. error code=1").
        #expect(lines.first?.hasPrefix("integrity      ") == true)
        #expect(lines.count <= 7)
        #expect(lines.contains { $0.hasPrefix("  ") && $0.contains(" pages (") && $0.hasSuffix(", …) failed their authentication check: the file is damaged or was changed") })
        #expect(!lines.contains { $0.contains("unable to get the page") })
    }

    /// A damaged record header can claim a value longer than SQLite allows: copying it is damage too,
    /// not "string or blob too big" with exit 1.
    @Test func aBackupOfARecordClaimingAHugeValueIsDamage() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try bigStore(r, encrypted: false)
        try flipBytes(r, at: 0.1)
        let backup = try r.vein(["backup", "s.vein", "copy.vein"])
        #expect(backup.status == 65)
        #expect(backup.stderr == Self.damagedStore.replacingOccurrences(of: "malformed\n", with: "malformed (string or blob too big)\n"))
        #expect(!r.exists("copy.vein"))
    }
}
