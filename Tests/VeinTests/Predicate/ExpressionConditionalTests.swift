import Foundation
import Testing
@testable import Vein

/// The ternary `c ? a : b` with Swift's precedence (below `||`, right associative), its type rules, and
/// its evaluation order: only the branch taken runs, in SQL as in memory.
@Suite struct ExpressionConditionalTests: PredicateChecking {
    static let post = ExpressionParserTests.post
    static let manifest = ExpressionParserTests.manifest

    @Test func precedenceAndTypes() throws {
        guard case .conditional(.binary("||", _, _, _), _, .conditional, column: 7) = try ExpressionParser.parse("a || b ? 1 : c ? 2 : 3") else {
            Issue.record("? : must be below || and right associative")
            return
        }
        let optionalInt = try check("(views > 1 ? nil : views) == nil")
        guard case .compare("==", .conditional(_, _, _, .optional(.int)), _) = optionalInt else { Issue.record("\(optionalInt)"); return }
        let double = try check("(views > 1 ? 1 / 2 : 0.25) == 0.5")
        guard case .compare("==", .conditional(_, .arithmetic("/", _, _, .double), _, .double), _) = double else { Issue.record("\(double)"); return }
        #expect(try Evaluator { _ in .int(5) }.test(double))
        #expect(try Evaluator { _ in .int(0) }.test(check("(views > 1 ? 10 : 20) == 20")))
        #expect(failure("(views ? 1 : 2) == 1") == "the condition of '? :' must be a Bool, not Int\n  (views ? 1 : 2) == 1\n   ^")
        #expect(failure("(views > 1 ? 1 : \"x\") == 1")
                == "result values in '? :' expression have mismatching types Int and String\n  (views > 1 ? 1 : \"x\") == 1\n             ^")
        #expect(failure("views > 1 ? true") == "expected ':', found end of input\n  views > 1 ? true\n                  ^")
    }

    @Test func onlyTheBranchTakenRunsInSQLAndInMemory() throws {
        let context = try ArithmeticTrapTests.context(views: [0, 1, 3, 7])
        #expect(ArithmeticTrapTests.count(context, "(views == 0 ? 0 : 100 / views) > 10") == .success(3))
        #expect(ArithmeticTrapTests.count(context, "(views == 0 ? 100 / views : 0) > 10") == .failure(.divisionByZero))
        #expect(ArithmeticTrapTests.count(context, "(views == 0 ? 0 : 100 / views) > 10 && title.lowercased() != \"x\"") == .success(3))
        #expect(ArithmeticTrapTests.count(context, "(title.isEmpty ? 1 : views) == 1") == .success(2))
        let fragment = try #require(SQLCompiler(table: "\"Post\"").condition(try check("(views == 0 ? 0 : 100 / views) > 10")))
        #expect(fragment.isExact && fragment.sql.contains("CASE WHEN"))
    }
}
