import Foundation
import Testing
@testable import Vein

/// Swift types an integer literal, and arithmetic made only of integer literals, by its context: next to
/// a Double, `1 / 2` is Double division (0.5). Anything else keeps its own type (`views / 2` is Int).
@Suite struct ExpressionContextTypingTests: PredicateChecking {
    static var defaultModel: ModelSchema { attachment }
    static let manifest = ExpressionParserTests.manifest
    static let attachment = ExpressionParserTests.attachment

    /// In memory, on one row with these values.
    func holds(_ source: String, _ row: [String: Value], model: ModelSchema = attachment) throws -> Bool {
        try Evaluator { path in row[path.column] ?? .null }.test(try check(source, model: model))
    }

    @Test func integerLiteralArithmeticTakesTheDoubleContext() throws {
        let size = TypedExpression.ColumnPath(hop: nil, column: "sizeMiB", storedType: .double)
        #expect(try check("sizeMiB > 1 / 2")
                == .compare(">", .column(size, .double), .arithmetic("/", .literal(.double(1), .double), .literal(.double(2), .double), .double)))
        #expect(try holds("sizeMiB > 1 / 2", ["sizeMiB": .double(0.6)]))
        #expect(try !holds("sizeMiB > 1 / 2", ["sizeMiB": .double(0.4)]))
        #expect(try holds("1 / 2 < sizeMiB", ["sizeMiB": .double(0.6)]))
        #expect(try holds("sizeMiB == (1 + 2) * 3 / 2", ["sizeMiB": .double(4.5)]))
        #expect(try holds("sizeMiB == -(1 / 4)", ["sizeMiB": .double(-0.25)]))
        #expect(try holds("sizeMiB * (1 / 4) == 1", ["sizeMiB": .double(4)]))
        #expect(try holds("[1 / 2, 3].contains(sizeMiB)", ["sizeMiB": .double(0.5)]))
        #expect(try holds("sizeMiB > 9223372036854775807 + 1", ["sizeMiB": .double(1e19)]))  // no Int overflow: Double
        // Without a Double beside them, integer literals are Int, as in Swift.
        #expect(try holds("1 / 2 == 0", [:]))
        #expect(try holds("1 / 2 < 0.6", [:]))
        #expect(try holds("views / 2 == 1", ["views": .int(3)], model: ExpressionParserTests.post))
    }

    @Test func onlyLiteralOnlyExpressionsTakeTheContext() {
        #expect(failure("sizeMiB > views / 2", model: ExpressionParserTests.post) != nil)
        #expect(failure("sizeMiB > post?.views ?? 1") == """
            cannot compare Double with Int
              sizeMiB > post?.views ?? 1
                      ^
            """)
        #expect(failure("sizeMiB > 5 % 2") == """
            cannot compare Double with Int
              sizeMiB > 5 % 2
                      ^
            """)
        #expect(failure("sizeMiB > (post?.views ?? 1) / 2") == """
            cannot compare Double with Int
              sizeMiB > (post?.views ?? 1) / 2
                      ^
            """)
    }

    @Test func sqlAndAssignmentsAgree() throws {
        let context = try ArithmeticTrapTests.context(views: [1])
        for size in [0.25, 0.5, 0.75, 4.5] {
            _ = try context.insert("Attachment", ["name": .string("a\(size)"), "fileType": .string("png"), "sizeMiB": .double(size)])
        }
        try context.save()
        let runner = QueryRunner(context: context)
        func count(_ condition: String) throws -> Int? {
            guard case .count(let n) = try runner.run("count Attachment where \(condition)") else { return nil }
            return n
        }
        #expect(try count("sizeMiB > 1 / 2") == 2)
        #expect(try count("sizeMiB <= 9 / 2 && sizeMiB >= 1 / 4") == 4)
        _ = try runner.run("update Attachment where sizeMiB == 1 / 4 set sizeMiB = 1 / 8", save: true)
        #expect(try count("sizeMiB == 0.125") == 1)
        _ = try runner.run(#"insert Attachment(name: "b", fileType: .gif, sizeMiB: 3 / 4)"#, save: true)
        #expect(try count("sizeMiB == 0.75") == 2)
    }
}
