import Foundation
import Testing
import Vein

/// `vein import` end to end (issue 18): upsert of lists and repeats, the summary's counts, grouped problems,
/// a summary that cannot be written after the commit, a directory as input.
@Suite struct ImportCommandTests {
    static let header = "{\"vein\":1,\"app\":\"com.example.blog\",\"schemaVersion\":\"0.0.1\"}\n"

    func id(_ n: Int) -> String { "01JDQ8ZK3M" + String(format: "%016d", n) }
    func post(_ n: Int, attachments: [Int] = [], title: String = "Hello") -> String {
        "{\"model\":\"Post\",\"id\":\"\(id(n))\",\"title\":\"\(title)\",\"content\":\"c\",\"attachments\":["
            + attachments.map { "\"\(id($0))\"" }.joined(separator: ",") + "]}\n"
    }
    func attachment(_ n: Int, post: Int?) -> String {
        "{\"model\":\"Attachment\",\"id\":\"\(id(n))\",\"name\":\"a.png\",\"fileType\":\"png\",\"sizeMiB\":1,\"post\":"
            + (post.map { "\"\(id($0))\"" } ?? "null") + "}\n"
    }

    /// Issue 18, item 6: an upserted post whose attachments leave out one that still names it.
    @Test func upsertRefusesAListLeavingOutARowThatNamesItsOwner() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try r.write("blog.jsonl", Self.header + post(1, attachments: [2]) + attachment(2, post: 1))
        try #require(try r.vein(["import", "b.vein", "blog.jsonl", "--key-file", "k"]).status == 0)
        try r.write("up.jsonl", Self.header + post(1, title: "Changed"))
        let refused = try r.vein(["import", "b.vein", "up.jsonl", "--upsert", "--key-file", "k"])
        #expect(refused.status == 65)
        #expect(refused.stderr == """
            vein: error: import from up.jsonl refused; nothing was written
            vein: error:   Attachment.post: 1 row is not listed back by Post.attachments (\(id(2)))

            """)
        let listed = try r.query("Post(#id(\"\(id(1))\")).attachments", ["--format", "jsonl"])
        #expect(listed.stdout.contains(id(2)))
        #expect(try r.query("Post", ["--format", "jsonl"]).stdout.contains("\"title\":\"Hello\""))
        // Moving the attachment away in the same file is what makes the list true.
        try r.write("move.jsonl", Self.header + post(1, title: "Changed") + attachment(2, post: nil))
        let moved = try r.vein(["import", "b.vein", "move.jsonl", "--upsert", "--key-file", "k"])
        #expect(moved.status == 0 && moved.stderr == "imported 2 records (Attachment 1, Post 1): 0 inserted, 2 replaced\n", "\(moved.stderr)")
        #expect(try r.vein(["verify", "b.vein", "--key-file", "k"]).status == 0)
    }

    /// Issue 18, item 7: one id on 30 lines was "imported 30 records (Post 30)" and stored one row.
    @Test func upsertRefusesRepeatsAndCountsInsertedAndReplaced() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try r.write("same.jsonl", Self.header + String(repeating: post(1), count: 30))
        let repeated = try r.vein(["import", "b.vein", "same.jsonl", "--upsert", "--key-file", "k"])
        #expect(repeated.status == 65)
        #expect(repeated.stderr == """
            vein: error: import from same.jsonl refused; nothing was written
            vein: error:   Post: 29 records repeat ids of earlier records of the file (\(id(1)))

            """)
        #expect(try r.query("count Post").stdout == "0\n")
        try r.write("one.jsonl", Self.header + post(1))
        try #require(try r.vein(["import", "b.vein", "one.jsonl", "--key-file", "k"]).status == 0)
        try r.write("three.jsonl", Self.header + post(1, title: "New") + post(2) + post(3))
        let upserted = try r.vein(["import", "b.vein", "three.jsonl", "--upsert", "--key-file", "k", "--json"])
        #expect(upserted.status == 0)
        #expect(upserted.stdout == """
            {
              "store": "b.vein",
              "records": 3,
              "inserted": 2,
              "replaced": 1,
              "models": {
                "Post": 3
              }
            }

            """)
        #expect(try r.query("count Post").stdout == "3\n")
        let text = try r.vein(["import", "b.vein", "three.jsonl", "--upsert", "--key-file", "k"])
        #expect(text.stderr == "imported 3 records (Post 3): 0 inserted, 3 replaced\n")
    }

    /// Twenty identical "UNIQUE constraint failed: Tag.label" lines named no record; a duplicate-id summary
    /// named one id five times.
    @Test func identicalProblemsAreOneLineNamingTheRecords() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("tags.json5", """
            { vein: 1, app: "t.tags", version: "1.0.0", models: { Tag: { fields: { label: "string unique" } } } }
            """)
        try #require(try r.vein(["create", "t.vein", "--schema", "tags.json5", "--plaintext"]).status == 0)
        let header = "{\"vein\":1,\"app\":\"t.tags\",\"schemaVersion\":\"1.0.0\"}\n"
        try r.write("tags.jsonl", header + (0..<25).map { "{\"model\":\"Tag\",\"id\":\"\(id($0))\",\"label\":\"same\"}\n" }.joined())
        for upsert in [false, true] {
            let result = try r.vein(["import", "t.vein", "tags.jsonl"] + (upsert ? ["--upsert"] : []))
            #expect(result.status == 65)
            #expect(result.stderr == """
                vein: error: import from tags.jsonl refused; nothing was written
                vein: error:   Tag.label: 20 records: another Tag already has this label (label is unique): line 3 (\(id(1))), \
                line 4 (\(id(2))), line 5 (\(id(3))), line 6 (\(id(4))), line 7 (\(id(5))), …
                vein: error:   (stopped after 20 records with problems)

                """, "upsert \(upsert)")
        }
        #expect(try r.vein(["query", "t.vein", "count Tag"]).stdout == "0\n", "an upsert deleted the rows holding the label")
        try r.write("twice.jsonl", header + String(repeating: "{\"model\":\"Tag\",\"id\":\"\(id(1))\",\"label\":\"x\"}\n", count: 6))
        let twice = try r.vein(["import", "t.vein", "twice.jsonl"])
        #expect(twice.stderr.contains("  Tag: 5 records repeat ids of earlier records of the file (\(id(1)))\n"), "\(twice.stderr)")
        try r.write("one.jsonl", header + "{\"model\":\"Tag\",\"id\":\"\(id(1))\",\"label\":\"x\"}\n")
        try #require(try r.vein(["import", "t.vein", "one.jsonl"]).status == 0)
        let again = try r.vein(["import", "t.vein", "twice.jsonl"])
        #expect(again.stderr == """
            vein: error: import from twice.jsonl refused; nothing was written
            vein: error:   Tag: 6 records have ids already in the store (\(id(1)))
            hint: pass --upsert to replace records that have the same id

            """)
        let upserted = try r.vein(["import", "t.vein", "twice.jsonl", "--upsert"])
        #expect(upserted.stderr == """
            vein: error: import from twice.jsonl refused; nothing was written
            vein: error:   Tag: 5 records repeat ids of earlier records of the file (\(id(1)))

            """)
    }

    /// The summary is written after the commit (OutputFailureTests.aClosedStandardOutputIsAnIOError has the
    /// message for a closed standard output): a closed standard error, where the note goes, is the same
    /// status with nobody to tell; a reader that went away is no failure.
    @Test func aSummaryThatCannotBeWrittenLeavesTheImportStanding() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try r.write("posts.jsonl", Self.header + post(1) + post(2))
        let note = try r.run("/bin/sh", ["-c", "\"$0\" import b.vein posts.jsonl --key-file k 2>&-", VeinRunner.binary])
        #expect(note.status == 74)
        #expect(try r.query("count Post").stdout == "2\n")
        let piped = try r.run("/bin/sh", ["-c", "\"$0\" import b.vein posts.jsonl --upsert --key-file k --json | true", VeinRunner.binary])
        #expect(piped.status == 0 && piped.stderr.isEmpty)
        #expect(try r.query("count Post").stdout == "2\n")
    }

    @Test func aDirectoryIsNoFileToImport() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try FileManager.default.createDirectory(atPath: r.path("dir"), withIntermediateDirectories: false)
        let result = try r.vein(["import", "b.vein", "dir", "--key-file", "k", "--format", "jsonl"])
        #expect(result.status == 66)
        #expect(result.stderr == "vein: error: cannot read dir: it is a directory\n")
    }
}
