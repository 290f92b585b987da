import Foundation
import Testing
import Vein

/// Conditions and values where Swift traps, hostile sizes, and assignment checks, end to end: the text and
/// exit status a person sees.
@Suite struct ExpressionTrapCommandTests {
    /// An encrypted blog store with posts of views 0, 1, 3 and 7 (inserted in that order).
    func store() throws -> VeinRunner {
        let r = try VeinRunner.blogStore()
        for (i, views) in [0, 1, 3, 7].enumerated() {
            try #require(try r.query(#"insert Post(title: "t\#(i)", content: "c", views: \#(views))"#).status == 0)
        }
        return r
    }

    @Test func forceUnwrappingNilExits65InSQLAndInMemory() throws {
        let r = try store()
        defer { r.cleanUp() }
        try #require(try r.query(#"update Post where views == 3 set publishedAt = #date("2026-01-31T12:00:00Z")"#).status == 0)
        let nilRow = try r.query(#"count Post where publishedAt! < #date("2030-01-01")"#)
        #expect(nilRow.status == 65 && nilRow.stdout.isEmpty)
        #expect(nilRow.stderr == "vein: error: unexpectedly found nil while unwrapping an Optional value\n")
        // In memory too (lowercased() is never compiled to SQL).
        let inMemory = try r.query(#"count Post where publishedAt! < #date("2030-01-01") && title.lowercased() == "t2""#)
        #expect(inMemory.status == 65 && inMemory.stderr == nilRow.stderr)
        // Where && stops first, nothing traps.
        #expect(try r.query(#"count Post where publishedAt != nil && publishedAt! < #date("2030-01-01")"#).stdout == "1\n")
        #expect(try r.query(#"count Post where publishedAt != nil && publishedAt! < #date("2030-01-01") && title.lowercased() == "t2""#).stdout == "1\n")
    }

    @Test func overflowAndDivisionByZeroInAConditionExit65() throws {
        let r = try store()
        defer { r.cleanUp() }
        let overflow = try r.query("count Post where views * 4611686018427387904 > 0")
        #expect(overflow.status == 65 && overflow.stdout.isEmpty)
        #expect(overflow.stderr == "vein: error: arithmetic overflow in 3 * 4611686018427387904\n")
        let constant = try r.query("count Post where 9223372036854775807 + 1 > 0")
        #expect(constant.status == 65 && constant.stderr == "vein: error: arithmetic overflow in 9223372036854775807 + 1\n")
        let division = try r.query("count Post where 100 / views > 0")
        #expect(division.status == 65 && division.stderr == "vein: error: division by zero\n")
        #expect(try r.query("Post where views % 0 == 1").status == 65)
        // Swift evaluates the division first, on every row; the later conjunct must not hide it.
        let ordered = try r.query(#"count Post where 100 / views > 0 && title == "nope""#)
        #expect(ordered.status == 65 && ordered.stderr == "vein: error: division by zero\n")
        let where_ = try r.vein(["export", "b.vein", "--key-file", "k", "--model", "Post", "--where", "100 / views > 0 && views > 5"])
        #expect(where_.status == 65 && where_.stderr == "vein: error: division by zero\n")
        // Where && stops first, nothing traps.
        #expect(try r.query("count Post where views > 0 && 100 / views > 20").stdout == "2\n")
        #expect(try r.query("count Post where views + 1 > 2").stdout == "2\n")
        // An update that would overflow changes nothing.
        let update = try r.query("update Post where views > 2 set views = views * 9223372036854775807")
        #expect(update.status == 65 && update.stderr == "vein: error: arithmetic overflow in 3 * 9223372036854775807\n")
        #expect(try r.query("count Post where views == 3").stdout == "1\n")
    }

    /// Double arithmetic does not trap in Swift, but a cell cannot hold its infinity: the update is refused
    /// (it was saved, and every later read of the row called the store damaged).
    @Test func anUpdateToAnInfiniteDoubleIsRefused() throws {
        let r = try store()
        defer { r.cleanUp() }
        try #require(try r.query(#"insert Attachment(name: "a", fileType: .png, sizeMiB: 1e308)"#).status == 0)
        let update = try r.query("update Attachment set sizeMiB = sizeMiB * 10")
        #expect(update.status == 65 && update.stdout.isEmpty)
        #expect(update.stderr == "vein: error: Attachment.sizeMiB takes a finite Double, not Infinity\n")
        #expect(try r.query("Attachment", ["--format", "jsonl"]).stdout.contains(#""sizeMiB":1e+308"#))
        #expect(try r.vein(["verify", "b.vein", "--key-file", "k", "--quiet"]).status == 0)
    }

    @Test func deepNestingIsRefusedWithACaret() throws {
        let r = try store()
        defer { r.cleanUp() }
        let nested = String(repeating: "(", count: 5000) + "views > 1" + String(repeating: ")", count: 5000)
        let query = try r.query("count Post where \(nested)")
        #expect(query.status == 65)
        let lines = query.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "vein: error: the expression is nested too deeply (more than 512 levels)")
        // A long line is shown around the column, the caret under the 513th parenthesis.
        #expect(lines.count == 4 && lines[1] == "  …" + String(repeating: "(", count: 80) + "…" && lines[2] == "   " + String(repeating: " ", count: 40) + "^")
        let bangs = try r.query("count Post where " + String(repeating: "!", count: 10_000) + "(views > 1)")
        #expect(bangs.status == 65 && bangs.stderr.hasPrefix("vein: error: the expression is nested too deeply (more than 512 levels)\n"))
        let export = try r.vein(["export", "b.vein", "--key-file", "k", "--model", "Post", "--where", nested])
        #expect(export.status == 65 && export.stderr.hasPrefix("vein: error: the expression is nested too deeply (more than 512 levels)\n"))
        try r.write("plan.json5", MigrationPlanText.blogStage(map: "views", nested))
        let check = try r.vein(["migrate", "check", "plan.json5"])
        #expect(check.status == 65 && check.stderr.contains("map Post.views: the expression is nested too deeply (more than 512 levels) (in \"…"
                                                             + String(repeating: "(", count: 80) + "…\", column 513)"), "\(check.stderr.prefix(300))")
        #expect(check.stderr.count < 1000)
    }

    @Test func longListsAndChainsAnswer() throws {
        let r = try store()
        defer { r.cleanUp() }
        let list = try r.query("count Post where [" + (0...998).map(String.init).joined(separator: ", ") + "].contains(views)")
        #expect(list.status == 0 && list.stdout == "4\n", "\(list.stderr.prefix(200))")
        let odd = try r.query("count Post where [" + (0...998).filter { $0 % 2 == 1 }.map(String.init).joined(separator: ", ") + "].contains(views)")
        #expect(odd.stdout == "3\n")
        let chain = try r.query("count Post where " + (0..<2000).map { "views == \($0 * 3)" }.joined(separator: " || "))
        #expect(chain.status == 0 && chain.stdout == "2\n", "\(chain.stderr.prefix(200))")
        let titles = try r.query("count Post where " + (0..<2000).map { #"title == "t\#($0)""# }.joined(separator: " || "))
        #expect(titles.status == 0 && titles.stdout == "4\n", "\(titles.stderr.prefix(200))")
        let bangs = try r.query("count Post where " + String(repeating: "!", count: 500) + "(views > 1)")
        #expect(bangs.status == 0 && bangs.stdout == "2\n", "\(bangs.stderr.prefix(200))")
    }

    @Test func migrationMapOverflowExits65NamingTheRow() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        #expect(try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        for views in [0, 1, 2] {
            #expect(try r.vein(["query", "b.vein", #"insert Post(title: "t", content: "c", views: \#(views))"#]).status == 0)
        }
        let ids = try JSONParser.parse(try r.vein(["query", "b.vein", "Post where views == 2", "--format", "json"]).stdout)
            .arrayValue?.compactMap { $0.objectValue?["_id"]?.stringValue } ?? []
        let id = try #require(ids.first)
        try r.write("plan.json5", MigrationPlanText.blogStage(map: "views", "views * 9223372036854775807"))
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("b.vein")))
        let migrate = try r.vein(["migrate", "b.vein", "--plan", "plan.json5"])
        #expect(migrate.status == 65)
        #expect(migrate.stderr == """
            vein: error: stage 0.0.1 → 0.0.2 would lose or could not carry data; nothing was changed
            vein: error:   Post.views: the map expression fails (arithmetic overflow in 2 * 9223372036854775807) on a row (\(id))
            hint: change the map expression so it cannot fail, or delete such rows first

            """)
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("b.vein"))) == before)
        #expect(try r.vein(["verify", "b.vein"]).status == 0)
        #expect(try r.vein(["query", "b.vein", "count Post where views == 2"]).stdout == "1\n")
        let check = try r.vein(["migrate", "check", "plan.json5"])
        #expect(check.status == 65 && check.stderr.contains("Post.views: the map expression fails (arithmetic overflow in "))
    }

    @Test func assignmentsAndEnumCasesAreCheckedBeforeRunning() throws {
        let r = try store()
        defer { r.cleanUp() }
        let enumCase = try r.query(#"insert Attachment(name: "a", fileType: .bmp, sizeMiB: 1)"#)
        #expect(enumCase.status == 65)
        #expect(enumCase.stderr == """
            vein: error: .bmp is not one of the enum's values: .png, .jpg, .gif, .swift
              insert Attachment(name: "a", fileType: .bmp, sizeMiB: 1)
                                                     ^

            """)
        let close = try r.query(#"insert Attachment(name: "a", fileType: .pgn, sizeMiB: 1)"#)
        #expect(close.status == 65 && close.stderr.hasPrefix("vein: error: .pgn is not one of the enum's values: .png, .jpg, .gif, .swift (did you mean '.png'?)\n"))
        let update = try r.query("update Post where views == 99 set title = 5")
        #expect(update.status == 65)
        #expect(update.stderr == """
            vein: error: Post.title takes String, not Int
              update Post where views == 99 set title = 5
                                                        ^

            """)
    }

    @Test func planErrorsAreWords() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("plan.json5", #"{ vein: 1, app: "com.example.blog", schemas: ["nope.json5"], stages: [] }"#)
        let check = try r.vein(["migrate", "check", "plan.json5"])
        #expect(check.status == 65)
        #expect(check.stderr == "vein: error: plan.json5: schemas[0]: no such file: nope.json5\n")
    }
}

/// A plan from the blog schema to a copy of it at 0.0.2 with one map step.
enum MigrationPlanText {
    static func blogStage(map field: String, _ expression: String) -> String {
        let escaped = expression.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let next = (try? String(contentsOfFile: VeinRunner.exampleManifest, encoding: .utf8))?
            .replacingOccurrences(of: "version: \"0.0.1\"", with: "version: \"0.0.2\"") ?? ""
        return """
            { vein: 1, app: "com.example.blog", schemas: ["\(VeinRunner.exampleManifest)", \(next)],
              stages: [{ from: "0.0.1", to: "0.0.2", steps: [{ map: { model: "Post", set: { \(field): "\(escaped)" } } }] }] }
            """
    }
}
