@testable import Vein

/// What the expression suites ask of the type checker, against the example blog schema: the typed tree of a
/// predicate, or the rendered error (with its caret) when it is refused.
protocol PredicateChecking {
    /// The model a suite's predicates are written against unless it names another.
    static var defaultModel: ModelSchema { get }
}

extension PredicateChecking {
    static var defaultModel: ModelSchema { ExpressionParserTests.post }

    func check(_ source: String, model: ModelSchema = Self.defaultModel) throws -> TypedExpression {
        try TypeChecker.checkPredicate(source, model: model, manifest: ExpressionParserTests.manifest)
    }

    func failure(_ source: String, model: ModelSchema = Self.defaultModel) -> String? {
        do {
            _ = try TypeChecker.checkPredicate(source, model: model, manifest: ExpressionParserTests.manifest)
            return nil
        } catch {
            return error.rendered
        }
    }
}
