import Foundation
import Testing
@testable import Vein

/// `(a...b).contains(x)` and `(a..<b).contains(x)` as Swift writes them: one Comparable type for bounds and
/// value (integer literals typed by their context), `BETWEEN` / `>= AND <` in SQL, and Swift's trap when
/// the bounds do not form a range, in SQL as in memory.
@Suite struct ExpressionRangeTests: PredicateChecking {
    static let post = ExpressionParserTests.post
    static let attachment = ExpressionParserTests.attachment

    @Test func parsesWithSwiftsPrecedence() throws {
        // Below `+`, above `??` and comparisons; the range needs its parentheses to take `.contains`.
        guard case .call(.binary("...", .literal(.int(1), _), .binary("+", _, _, _), _), "contains", _, _) = try ExpressionParser.parse("(1...2 + 3).contains(views)"),
              case .binary("==", .binary("..<", _, _, _), _, _) = try ExpressionParser.parse("1..<2 == x") else {
            Issue.record("wrong tree")
            return
        }
        #expect(failure("(1...2...3).contains(views)") == "range operators cannot be chained, as in Swift\n  (1...2...3).contains(views)\n        ^")
    }

    @Test func typesFollowSwift() throws {
        let views = TypedExpression.column(.init(hop: nil, column: "views", storedType: .int), .int)
        #expect(try check("(1...5).contains(views)") == .rangeContains(.literal(.int(1), .int), .literal(.int(5), .int), closed: true, views))
        let size = TypedExpression.column(.init(hop: nil, column: "sizeMiB", storedType: .double), .double)
        #expect(try check("(1..<5).contains(sizeMiB)", model: Self.attachment)
                == .rangeContains(.literal(.double(1), .double), .literal(.double(5), .double), closed: false, size))
    }

    @Test func typeErrors() {
        #expect(failure("(0.5...2).contains(views)") == "a range of Double cannot contain a value of type Int\n  (0.5...2).contains(views)\n                     ^")
        #expect(failure("(1...5).contains(post?.views)", model: Self.attachment)
                == "a range of Int cannot contain a value of type Int?; unwrap with ?? first\n  (1...5).contains(post?.views)\n                         ^")
        #expect(failure("(publishedAt...publishedAt).contains(publishedAt)")
                == "the bounds of a range cannot be optional (Date?), as in Swift; unwrap with ?? first\n  (publishedAt...publishedAt).contains(publishedAt)\n   ^")
        #expect(failure("(false...true).contains(views > 1)")
                == "Bool values cannot form a range (Swift needs Comparable bounds: Int, Double, String, Date)\n  (false...true).contains(views > 1)\n        ^")
        #expect(failure("(1...\"x\").contains(views)") == "the bounds of a range must have one type, not Int and String\n  (1...\"x\").contains(views)\n    ^")
        #expect(failure("(0.5...views).contains(2)") == "the bounds of a range must have one type, not Double and Int\n  (0.5...views).contains(2)\n      ^")
        #expect(failure("1...5") == "a range can only be used with .contains(…), as in (1...5).contains(views)\n  1...5\n   ^")
        #expect(failure("(1...5).count == 1") == "a range can only be used with .contains(…), as in (1...5).contains(views)\n  (1...5).count == 1\n    ^")
        #expect(failure("(1...5).first(views)") == "a range has no method 'first' here; use (a...b).contains(x)\n  (1...5).first(views)\n          ^")
    }

    @Test func sqlAndMemoryAgreeOnIntStringAndDate() throws {
        let context = try ArithmeticTrapTests.context(views: [0, 1, 3, 5, 7])
        func count(_ condition: String) -> Result<Int, EvaluationError> { ArithmeticTrapTests.count(context, condition) }
        #expect(count("(1...5).contains(views)") == .success(3))
        #expect(count("(1..<5).contains(views)") == .success(2))
        #expect(count("(1..<1).contains(views)") == .success(0))
        #expect(count("(1...5).contains(views) && title.lowercased() != \"x\"") == .success(3))  // in memory after SQL
        #expect(count("(\"t1\"...\"t3\").contains(title)") == .success(3))
        #expect(count("(\"t1\"..<\"t3\").contains(title)") == .success(2))
        #expect(count("(#date(\"1970-01-01T00:00:00Z\")...#date(\"2100-01-01T00:00:00Z\")).contains(publishedAt ?? #date(\"2000-01-01T00:00:00Z\"))") == .success(5))
        // Bounds read from the row: the range is formed on each row, and traps where lower > upper.
        #expect(count("(views...7).contains(5)") == .success(4))
        #expect(count("(views...3).contains(2)") == .failure(.invalidRange))
        #expect(count("(5...1).contains(views)") == .failure(.invalidRange))
        let checked = try #require(SQLCompiler(table: "\"Post\"").condition(try check("(views...3).contains(2)")))
        #expect(checked.isExact && checked.canFail && checked.sql.contains("vein_range"))
        let plain = try #require(SQLCompiler(table: "\"Post\"").condition(try check("(1...5).contains(views)")))
        #expect(plain.isExact && !plain.canFail && plain.sql.contains("BETWEEN"))
    }
}
