import Foundation

// Apple's Foundation declares this expression; the toolchain's Foundation on Linux does not, so the
// `#Predicate` macro's expansion of `$0.title.localizedStandardContains(search)` (a call of
// `PredicateExpressions.build_localizedStandardContains`) fails to compile there. Vein supplies it under
// Apple's names, so an app's search field compiles unchanged; where Foundation has its own, Vein's steps aside.
#if !canImport(Darwin)
extension PredicateExpressions {
    /// `root.localizedStandardContains(other)`: a case- and diacritic-insensitive, locale-aware search, as
    /// Foundation answers it (the engine's evaluator calls the same method, so memory and store agree).
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = Bool

        public let root: Root
        public let other: Other

        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            let text = try root.evaluate(bindings)
            return text.localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// What the `#Predicate` macro calls for `.localizedStandardContains(_:)`.
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other)
        -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

/// The two operands in order, unkeyed: the form Apple's Foundation writes, so an encoded predicate reads
/// back on either platform.
extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {
    public init(from decoder: any Decoder) throws {
        var operands = try decoder.unkeyedContainer()
        self.init(root: try operands.decode(Root.self), other: try operands.decode(Other.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var operands = encoder.unkeyedContainer()
        try operands.encode(root)
        try operands.encode(other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: CustomStringConvertible {
    public var description: String { "StringLocalizedStandardContains(root: \(root), other: \(other))" }
}
#endif
