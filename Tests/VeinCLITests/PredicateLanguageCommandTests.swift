import Foundation
import Testing
import Vein

/// The forms of the predicate language that Swift's `#Predicate` takes and Vein added for it (ranges,
/// closures over a to-many, optional chaining, Swift's spacing rules), end to end: what a person sees.
@Suite struct PredicateLanguageCommandTests {
    /// A blog store: posts t0…t3 with views 0, 1, 3, 7; t1 has a 2 MiB attachment, t2 a 0.5 MiB one.
    func store() throws -> VeinRunner {
        let r = try VeinRunner.blogStore()
        for (i, views) in [0, 1, 3, 7].enumerated() {
            try #require(try r.query(#"insert Post(title: "t\#(i)", content: "c", views: \#(views))"#).status == 0)
        }
        for (title, size) in [("t1", 2.0), ("t2", 0.5)] {
            let post = try r.query(#"Post where title == "\#(title)""#, ["--format", "jsonl"])
            let id = try #require(post.stdout.range(of: #""_id":"([0-9A-Z]{26})""#, options: .regularExpression).map { String(post.stdout[$0].dropFirst(7).dropLast()) })
            try #require(try r.query(#"insert Attachment(name: "a", fileType: .png, sizeMiB: \#(size), post: #id("\#(id)"))"#).status == 0)
        }
        return r
    }

    @Test func newFormsSelectAsSwiftWould() throws {
        let r = try store()
        defer { r.cleanUp() }
        #expect(try r.query("count Post where (1...5).contains(views)").stdout == "2\n")
        #expect(try r.query("count Post where (1..<3).contains(views)").stdout == "1\n")
        #expect(try r.query("count Post where attachments.contains { $0.sizeMiB > 1 }").stdout == "1\n")
        #expect(try r.query("count Post where attachments.allSatisfy { a in a.sizeMiB < 1 }").stdout == "3\n")
        #expect(try r.query("count Post where attachments.filter { $0.sizeMiB > 0 }.count == 1").stdout == "2\n")
        #expect(try r.query(#"count Attachment where post?.title.hasPrefix("t") == true"#).stdout == "2\n")
    }

    @Test func mistakesAndTrapsExit65WithTheirText() throws {
        let r = try store()
        defer { r.cleanUp() }
        let range = try r.query("count Post where (views...3).contains(2)")
        #expect(range.status == 65 && range.stderr == "vein: error: Range requires lowerBound <= upperBound\n")
        let spacing = try r.query("count Post where views > 1?1:2 == 1")
        #expect(spacing.status == 65)
        #expect(spacing.stderr == """
            vein: error: the conditional operator needs a space before '?', as in Swift (c ? a : b); a '?' right after a value is optional chaining
              count Post where views > 1?1:2 == 1
                                        ^

            """)
        let optionalBool = try r.query(#"count Attachment where post?.title.hasPrefix("t")"#)
        #expect(optionalBool.status == 65)
        #expect(optionalBool.stderr.hasPrefix("vein: error: a condition must be a Bool, not Bool?; write (…) == true to take nil as false, as Swift requires\n"))
    }

    /// Statement and expression messages, as `vein query` prints them (exit 65, with the caret). Before:
    /// "unexpected 'limit' (…) (did you mean 'limit'?)", "no field 'nope' in Post" with no caret, and
    /// "'/' cannot order optional values" under the operator.
    @Test func clauseSortKeyAndOptionalOperandMessages() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        for (statement, message) in [
            ("Post limit 1 limit 2", "limit is given twice\n  Post limit 1 limit 2\n               ^"),
            ("Post sort nope", "no field 'nope' in Post\n  Post sort nope\n            ^"),
            ("count Attachment where post?.views / 0 > 1",
             "value of optional type Int? must be unwrapped to a value of type Int (use ?? to give a default, or ! to force unwrap)\n"
             + "  count Attachment where post?.views / 0 > 1\n                         ^"),
        ] {
            let result = try r.query(statement)
            #expect(result.status == 65, "\(statement)")
            #expect(result.stderr == "vein: error: \(message)\n", "\(statement)")
        }
    }
}
