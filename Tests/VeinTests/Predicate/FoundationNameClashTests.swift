import Foundation
import Testing
import Vein

/// An app imports Foundation and Vein together. Foundation declares `Expression` (the `#Expression` macro's
/// type); if Vein declared a public `Expression` again, the unqualified name below would be ambiguous and
/// this file would stop compiling.
@Suite struct FoundationNameClashTests {
    @Test func foundationExpressionAndVeinParsedExpressionCoexist() throws {
        let foundationExpression: Expression<Int, Bool> = #Expression<Int, Bool> { $0 > 1 }
        #expect(try foundationExpression.evaluate(2))

        let parsed: ParsedExpression = try ExpressionParser.parse("views > 1")
        guard case .binary(">", _, _, _) = parsed else {
            Issue.record("wrong tree: \(parsed)")
            return
        }
    }
}
