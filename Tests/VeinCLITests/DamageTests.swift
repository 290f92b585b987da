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
        return try sqlite(r, "SELECT id FROM Post").trimmingCharacters(in: .whitespacesAndNewlines)
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
              Post.views: 1 values are not of type int (\(id))
              Post.publishedAt: 1 values are not of type date (\(id))
            relationships  ok

            """)
    }

    @Test func anEnumOutsideItsCasesIsRefused() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        _ = try storeWithAPost(r)
        let added = try r.vein(["query", "s.vein", #"insert Attachment(name: "a.png", fileType: .png, sizeMiB: 1.5)"#])
        #expect(added.status == 0, "\(added.stderr)")
        let id = try sqlite(r, "SELECT id FROM Attachment").trimmingCharacters(in: .whitespacesAndNewlines)
        try sqlite(r, "PRAGMA ignore_check_constraints = ON; UPDATE Attachment SET fileType = 'bmp'")
        let query = try r.vein(["query", "s.vein", "count Attachment where name == \"a.png\""])
        #expect(query.stdout == "1\n")  // a count reads no cell
        let export = try r.vein(["export", "s.vein", "--model", "Attachment"])
        #expect(export.status == 65)
        #expect(export.stderr.hasPrefix("vein: error: Attachment \(id): fileType holds text \"bmp\", which is not a value of type enum\n"))
    }
}
