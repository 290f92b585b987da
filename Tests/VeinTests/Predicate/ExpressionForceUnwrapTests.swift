import Foundation
import Testing
@testable import Vein

/// `x!` as Swift has it: the value when there is one, a trap (an `EvaluationError`) on nil, in the
/// evaluator and in SQL alike; a non-optional operand is refused before anything runs.
@Suite struct ExpressionForceUnwrapTests: PredicateChecking {
    static let post = ExpressionParserTests.post
    static let manifest = ExpressionParserTests.manifest

    @Test func typesAndErrors() throws {
        let published = TypedExpression.ColumnPath(hop: nil, column: "publishedAt", storedType: .optional(.date))
        #expect(try check(#"publishedAt! < #date("2026-01-01")"#)
                == .compare("<", .forceUnwrap(.column(published, .optional(.date)), .date), .literal(.date(1_767_225_600), .date)))
        #expect(try ExpressionParser.parse("!b!") == .unary(op: "!", operand: .forceUnwrap(.member(base: nil, name: "b", column: 1), column: 2), column: 0))
        #expect(failure("views! > 1") == "cannot force unwrap value of non-optional type Int\n  views! > 1\n       ^")
        #expect(failure("nil! == 1") == "'nil' cannot be force unwrapped\n  nil! == 1\n     ^")
    }

    @Test func nilTrapsInMemoryAndInSQL() throws {
        let typed = try check(#"publishedAt! < #date("2026-01-01")"#)
        #expect(throws: EvaluationError.unexpectedNil) { try Evaluator { _ in .null }.test(typed) }
        #expect(try Evaluator { _ in .date(0) }.test(typed))
        let fragment = try #require(SQLCompiler(table: "\"Post\"").condition(typed))
        #expect(fragment.isExact && fragment.canFail && fragment.sql.contains("vein_unwrap"))

        let context = try ArithmeticTrapTests.context(views: [1, 2])
        _ = try context.insert("Post", ["title": .string("dated"), "content": .string("c"), "views": .int(3), "publishedAt": .date(0)])
        try context.save()
        let runner = QueryRunner(context: context)
        #expect(throws: EvaluationError.unexpectedNil) { try runner.run(#"count Post where publishedAt! < #date("2026-01-01")"#) }
        guard case .count(let n) = try runner.run(#"count Post where publishedAt != nil && publishedAt! < #date("2026-01-01")"#) else {
            Issue.record("not a count")
            return
        }
        #expect(n == 1)
    }
}
