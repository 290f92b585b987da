import Foundation
import Testing
import Vein

/// `vein query` end to end: every statement form and output format, and its errors.
@Suite struct QueryCommandTests {
    @Test func everyStatementForm() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let inserted = try r.query(#"insert Post(title: "How to use Vein?", content: "It's very easy.", views: 12)"#)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(inserted.stdout.hasPrefix("inserted Post "))
        #expect(try r.query(#"insert Post(title: "Second", content: "x")"#).status == 0)
        let first = try JSONParser.parse(try r.query("Post where views > 10", ["--format", "json"]).stdout).arrayValue?.first?.objectValue
        let postID = try #require(first?["_id"]?.stringValue)
        #expect(first?["title"] == .string("How to use Vein?"))
        #expect(first?["publishedAt"] == .null)

        for (name, size) in [("a.png", "0.5"), ("b.gif", "2.5"), ("c.png", "1.5")] {
            let ext = name.split(separator: ".")[1]
            let r1 = try r.query(#"insert Attachment(name: "\#(name)", fileType: .\#(ext), sizeMiB: \#(size), post: #id("\#(postID)"))"#)
            #expect(r1.status == 0, "\(r1.stderr)")
            #expect(r1.stdout.contains("updated Post \(postID) (attachments)"))
        }
        // Traversal with its own predicate and sort; without a sort, the relationship's order.
        let traversed = try r.query(#"Post(#id("\#(postID)")).attachments where sizeMiB > 1 sort name desc"#, ["--format", "csv"])
        #expect(traversed.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] } == ["c.png", "b.gif"])
        let ordered = try r.query(#"Post(#id("\#(postID)")).attachments"#, ["--format", "jsonl"])
        #expect(ordered.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)).objectValue?["name"]?.stringValue } == ["a.png", "b.gif", "c.png"])

        #expect(try r.query("count Post where publishedAt == nil").stdout == "2\n")
        #expect(try r.query("count Attachment where fileType == .png", ["--format", "json"]).stdout == "{\"count\":2}\n")
        let got = try r.query(#"get #id("\#(postID)")"#, ["--format", "jsonl"])
        #expect(got.stdout.contains("\"_id\":\"\(postID)\""))

        // Writes: dry run changes nothing; the real run saves.
        let dry = try r.query(#"update Post where title == "Second" set views = views + 1"#, ["--dry-run"])
        #expect(dry.stdout.hasPrefix("updated Post ") && dry.stderr.contains("dry run: nothing was saved"))
        #expect(try r.query("count Post where views == 1").stdout == "0\n")
        #expect(try r.query(#"update Post where title == "Second" set views = views + 1"#).status == 0)
        #expect(try r.query("count Post where views == 1").stdout == "1\n")
        // Delete cascades to the attachments.
        let deleted = try r.query("delete Post where views == 12")
        #expect(deleted.stdout.components(separatedBy: "deleted Attachment").count == 4)
        #expect(try r.query("count Attachment").stdout == "0\n")
        #expect(try r.vein(["verify", "b.vein", "--key-file", "k"]).status == 0)
    }

    @Test func tableIsAlignedAndCsvQuoted() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "a, \"quoted\"", content: "line\nbreak")"#).status == 0)
        let csv = try r.query("Post", ["--format", "csv"])
        #expect(csv.stdout.contains(#","a, ""quoted""","line"#))
        let table = try r.query("Post")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("_id                         title"))
        #expect(table.stderr == "(1 row)\n")
    }

    @Test func errorsExit65WithACaret() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let typo = try r.query(#"Post where titel == "x""#)
        #expect(typo.status == 65)
        #expect(typo.stderr == """
            vein: error: no field 'titel' in Post (did you mean 'title'?)
              Post where titel == "x"
                         ^

            """)
        let typeError = try r.query("Post where views.contains(1)")
        #expect(typeError.status == 65)
        #expect(typeError.stderr.hasPrefix("vein: error: Int has no method 'contains'\n"))
        let model = try r.query("Pots")
        #expect(model.stderr.hasPrefix("vein: error: no model 'Pots' (did you mean 'Post'?)"))
        let missing = try r.query(#"insert Post(title: "x")"#)
        #expect(missing.status == 65)
        #expect(missing.stderr == "vein: error: Post.content needs a value (it is not optional and has no default)\n")
        let dangling = try r.query(#"insert Attachment(name: "a", fileType: .png, sizeMiB: 1, post: #id("01ARZ3NDEKTSV4RRFFQ69G5FAV"))"#)
        #expect(dangling.status == 65)
        #expect(dangling.stderr == "vein: error: Attachment.post: no row with id 01ARZ3NDEKTSV4RRFFQ69G5FAV\n")
        let wrongType = try r.query(#"insert Post(title: 1, content: "x")"#)
        #expect(wrongType.status == 65)
        #expect(wrongType.stderr == """
            vein: error: Post.title takes String, not Int
              insert Post(title: 1, content: "x")
                                 ^

            """)
        #expect(try r.query(#"insert Post(title: "t", content: "x")"#).status == 0)
        let zero = try r.query("update Post set views = views / 0")
        #expect(zero.status == 65)
        #expect(zero.stderr == "vein: error: division by zero\n")
        #expect(try r.query("count Post where views == 0").stdout == "1\n", "failed statements change nothing")
    }
}
