import Foundation
import Testing
@testable import Vein

@Suite struct ExpressionParserTests: PredicateChecking {
    static let manifest = try! ManifestParser.parse(
        String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/blog.json5"), encoding: .utf8),
        file: "blog.json5")
    static let post = manifest.model(named: "Post")!
    static let attachment = manifest.model(named: "Attachment")!

    @Test func precedenceFollowsSwift() throws {
        let e = try ExpressionParser.parse("a || b && c == 1 + 2 * 3")
        guard case .binary("||", _, .binary("&&", _, .binary("==", _, .binary("+", _, .binary("*", _, _, _), _), _), _), _) = e else {
            Issue.record("wrong tree: \(e)")
            return
        }
        guard case .binary("??", _, .binary("??", _, _, _), _) = try ExpressionParser.parse("a ?? b ?? c") else {
            Issue.record("?? must be right associative")
            return
        }
    }

    @Test func literalsAndForms() throws {
        #expect(try ExpressionParser.parse("-9223372036854775808") == .literal(.int(.min), column: 0))
        #expect(try ExpressionParser.parse("\"a\\n\\u{1F600}\\\"\"") == .literal(.string("a\n😀\""), column: 0))
        #expect(try ExpressionParser.parse("$0.title") == .member(base: nil, name: "title", column: 3))
        #expect(try ExpressionParser.parse("#date(\"2026-01-31T12:00:00Z\")") == .literal(.date(1_769_860_800), column: 0))
        _ = try check("title.contains(\"Vein\") && views > 10")
        _ = try check("$0.title.starts(with: \"How\") || publishedAt == nil")
        _ = try check("[1, 2, 3].contains(views)")
        _ = try check("attachments.count > 2 && !attachments.isEmpty")
        _ = try check("post?.title == \"x\"", model: Self.attachment)
        _ = try check("fileType == .png && sizeMiB > 1", model: Self.attachment)
        _ = try check("(publishedAt ?? #date(\"2020-01-01\")) < #date(\"2026-01-01\")")
        _ = try check("title.lowercased() == \"vein\" && title.count < 100")
    }

    @Test func errorsPointAtTheColumn() {
        #expect(failure("titel == \"x\"") == """
            no field 'titel' in Post (did you mean 'title'?)
              titel == "x"
              ^
            """)
        #expect(failure("views.contains(1)") == """
            Int has no method 'contains'
              views.contains(1)
                    ^
            """)
        #expect(failure("views == \"ten\"") == """
            cannot compare Int with String
              views == "ten"
                    ^
            """)
        #expect(failure("publishedAt < #date(\"2026-01-01\")") == """
            value of optional type Date? must be unwrapped to a value of type Date (use ?? to give a default, or ! to force unwrap)
              publishedAt < #date("2026-01-01")
              ^
            """)
        #expect(failure("fileType == .bmp", model: Self.attachment) == """
            .bmp is not one of the enum's values: .png, .jpg, .gif, .swift
              fileType == .bmp
                          ^
            """)
        #expect(failure("views") == "a condition must be a Bool, not Int\n  views\n  ^")
        #expect(failure("title = \"x\"") == "use == to compare ('=' assigns, and only in 'set')\n  title = \"x\"\n        ^")
        #expect(failure("title == 'x'") == "strings are written in double quotes, as in Swift\n  title == 'x'\n           ^")
        #expect(failure("1 < 2 < 3") == "comparisons cannot be chained, as in Swift; join them with &&\n  1 < 2 < 3\n        ^")
        #expect(failure("title.contains(") == "expected a value, found end of input\n  title.contains(\n                 ^")
        #expect(failure("#id(\"nope\") == id") == "\"nope\" is not an id (26 characters of Crockford base32)\n  #id(\"nope\") == id\n      ^")
        #expect(failure("views > 1 &&") == "expected a value, found end of input\n  views > 1 &&\n              ^")
        #expect(failure("title.size > 1") == "String has no member 'size'\n  title.size > 1\n        ^")
    }

    /// A to-one is optional, as in Swift: its hop is written `post?.title` and has an optional type; the
    /// path it resolves to (and so its SQL) is the one relationship hop.
    @Test func toOneHopIsAnOptionalChain() throws {
        let hop = Self.attachment.relationship(named: "post")
        let title = TypedExpression.ColumnPath(hop: hop, column: "title", storedType: .string)
        #expect(try check("post?.title == \"x\"", model: Self.attachment)
                == .compare("==", .column(title, .optional(.string)), .literal(.string("x"), .string)))
        #expect(try check("$0.post?.title == nil", model: Self.attachment)
                == .compare("==", .column(title, .optional(.string)), .literal(.null, .null)))
        let views = TypedExpression.ColumnPath(hop: hop, column: "views", storedType: .int)
        #expect(try check("(post?.views ?? 0) > 10", model: Self.attachment)
                == .compare(">", .coalesce(.column(views, .optional(.int)), .literal(.int(0), .int), .int), .literal(.int(10), .int)))
        let sql = SQLCompiler(table: "\"Attachment\"").condition(try check("post?.title == \"x\"", model: Self.attachment))
        #expect(sql?.sql.contains("SELECT") == true && sql?.isExact == true)
        #expect(try ExpressionParser.parse("post?.title") == .member(base: .optionalChain(.member(base: nil, name: "post", column: 0), column: 4), name: "title", column: 6))
    }

    @Test func toOneHopWithoutQuestionMarkSaysWhatSwiftWants() {
        #expect(failure("post.title == \"x\"", model: Self.attachment) == """
            post is optional: write post?.title
              post.title == "x"
              ^
            """)
        #expect(failure("$0.post.views > 1", model: Self.attachment) == """
            post is optional: write post?.views
              $0.post.views > 1
                 ^
            """)
        #expect(failure("post?.views > 1", model: Self.attachment) == """
            value of optional type Int? must be unwrapped to a value of type Int (use ?? to give a default, or ! to force unwrap)
              post?.views > 1
              ^
            """)
        #expect(failure("title?.count == 1") == """
            cannot use optional chaining on non-optional value of type String
              title?.count == 1
                   ^
            """)
        #expect(failure("publishedAt?.description == nil") == """
            Date has no member 'description'
              publishedAt?.description == nil
                           ^
            """)
        // Swift types the chain Bool?: a condition wants a Bool, and the error says what to write.
        #expect(failure("post?.title.contains(\"x\")", model: Self.attachment) == """
            a condition must be a Bool, not Bool?; write (…) == true to take nil as false, as Swift requires
              post?.title.contains("x")
                          ^
            """)
    }

    /// An optional operand of arithmetic or an ordering is Swift's "must be unwrapped", with the caret under
    /// the operand (before: "'/' cannot order optional values", under the operator).
    @Test func anOptionalOperandMustBeUnwrappedAsSwiftSays() {
        let unwrap = "must be unwrapped to a value of type Int (use ?? to give a default, or ! to force unwrap)"
        #expect(failure("(post?.views ?? 0) / 0 > 1 && post?.views / 0 > 1", model: Self.attachment) == """
            value of optional type Int? \(unwrap)
              (post?.views ?? 0) / 0 > 1 && post?.views / 0 > 1
                                            ^
            """)
        #expect(failure("1 + post?.views > 1", model: Self.attachment) == "value of optional type Int? \(unwrap)\n  1 + post?.views > 1\n      ^")
        #expect(failure("nil < views") == "'nil' is not compatible with expected argument type Int\n  nil < views\n  ^")
        // Negation and a String argument take no optional either (before: "'-' needs a number, not Int?",
        // "contains needs a String argument, not String?").
        #expect(failure("-post?.views > 1", model: Self.attachment) == "value of optional type Int? \(unwrap)\n  -post?.views > 1\n   ^")
        #expect(failure("name.contains(post?.title)", model: Self.attachment) == """
            value of optional type String? must be unwrapped to a value of type String (use ?? to give a default, or ! to force unwrap)
              name.contains(post?.title)
                            ^
            """)
        #expect(failure("views - (publishedAt == nil ? nil : 1) > 0") == """
            value of optional type Int? \(unwrap)
              views - (publishedAt == nil ? nil : 1) > 0
                       ^
            """)
    }

    /// Random and mutated inputs: an error or a tree, never a crash or a hang.
    @Test func fuzzedInputNeverCrashes() {
        var rng = SplitMix64(seed: 42)
        let pieces = ["title", "views", "$0.", ".", "(", ")", "[", "]", "==", "!=", "<", "&&", "||", "!", "-", "+", "*", "/",
                      "%", "??", "\"x\"", "\"", "\\", "1", "2.5", "1e", "nil", "true", "#date(", "#id(", ",", ":", "with:",
                      "contains", "count", "post", "attachments", "#", "$", "é", " ", "9223372036854775808", "\\u{",
                      "{", "}", " in ", "a", "$0", "...", "..<", "?.", "?", "allSatisfy", "filter", "where:"]
        let seeds = ["title.contains(\"Vein\") && views > 10", "[1, 2].contains(views) || publishedAt == nil",
                     "(views ?? 0) + 1 > 2", "post?.title == \"x\"", "attachments.contains { a in a.sizeMiB > 1 } && (1...5).contains(views)",
                     "attachments.filter { $0.post?.title.isEmpty == true }.count > 1"]
        var outcomes = 0
        for round in 0..<3000 {
            var source: String
            if round % 2 == 0 {
                source = (0..<Int.random(in: 1...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            } else {
                var chars = Array(seeds.randomElement(using: &rng)!)
                for _ in 0..<Int.random(in: 1...4, using: &rng) where !chars.isEmpty {
                    let at = Int.random(in: 0..<chars.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: chars.remove(at: at)
                    case 1: chars.insert(Array("()\"[].$#=!&|?\\")[Int.random(in: 0..<14, using: &rng)], at: at)
                    default: chars.swapAt(at, Int.random(in: 0..<chars.count, using: &rng))
                    }
                }
                source = String(chars)
            }
            _ = failure(source)
            outcomes += 1
        }
        #expect(outcomes == 3000)
    }
}
