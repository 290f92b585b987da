import Foundation

/// An expression as written, before type checking. Every node keeps the column it starts at, so errors
/// found later can still point at the source.
public indirect enum ParsedExpression: Equatable, Sendable {
    public enum Literal: Equatable, Sendable {
        case int(Int64)
        case double(Double)
        case string(String)
        case bool(Bool)
        case null
        /// `#date("…")`: seconds since 1970, microsecond precision.
        case date(Double)
        /// `#id("…")`: a row id.
        case id(String)
        /// A UUID a Swift `#Predicate` captured (`VeinCore`'s translation): a `UUID`.
        case uuid(UUID)
        /// `UUID(uuidString: "…")`, written as Swift writes a UUID value (a string is not one). Swift's
        /// initializer is failable, so its type is `UUID?`, as Swift has it (`id == UUID(uuidString: "…")`
        /// and `UUID(uuidString: "…")!` both compile there); it is never nil, as an invalid string is an
        /// error where it is written.
        case uuidString(UUID)
    }

    public struct Argument: Equatable, Sendable {
        public let label: String?
        public let value: ParsedExpression
        /// Written after the parentheses (`contains { … }`), where Swift drops the label (`where:`).
        public var isTrailingClosure = false

        /// For trees built in code rather than parsed (VeinCore's `#Predicate` translation).
        package init(label: String?, value: ParsedExpression, isTrailingClosure: Bool = false) {
            self.label = label
            self.value = value
            self.isTrailingClosure = isTrailingClosure
        }
    }

    case literal(Literal, column: Int)
    /// A name: a field or relationship (`title`, `$0.title`), or a member of a value (`post?.title`,
    /// `attachments.count`). `base` is nil for a bare name.
    case member(base: ParsedExpression?, name: String, column: Int)
    /// `base?`, the start of an optional chain (`post?.title`); the parser makes it only as the base of a
    /// member access, and `column` is the `?`'s.
    case optionalChain(ParsedExpression, column: Int)
    /// `base!`: the value of an optional, or Swift's trap when it is nil; `column` is the `!`'s.
    case forceUnwrap(ParsedExpression, column: Int)
    /// `condition ? then : otherwise`; `column` is the `?`'s.
    case conditional(ParsedExpression, ParsedExpression, ParsedExpression, column: Int)
    /// A method call: `title.contains("x")`, `title.lowercased()`.
    case call(base: ParsedExpression, name: String, arguments: [Argument], column: Int)
    case unary(op: String, operand: ParsedExpression, column: Int)
    /// Also the range operators `...` and `..<`, whose only use is `(a...b).contains(x)`.
    case binary(op: String, left: ParsedExpression, right: ParsedExpression, column: Int)
    case array([ParsedExpression], column: Int)
    /// `.png`
    case enumCase(String, column: Int)
    /// `{ $0.sizeMiB > 1 }` or `{ a in a.sizeMiB > 1 }`: the argument of `contains(where:)`, `allSatisfy`
    /// and `filter` on a to-many. `parameter` is `$0` for an anonymous one; `column` is the `{`'s.
    case closure(parameter: String, body: ParsedExpression, column: Int)
    /// A closure's parameter (`$0`, `a`) where the closure's body names it; the outer object's `$0` stays
    /// a bare member.
    case parameter(String, column: Int)

    public var column: Int {
        switch self {
        case .literal(_, let c), .member(_, _, let c), .optionalChain(_, let c), .forceUnwrap(_, let c), .conditional(_, _, _, let c), .call(_, _, _, let c), .unary(_, _, let c),
             .binary(_, _, _, let c), .array(_, let c), .enumCase(_, let c), .closure(_, _, let c), .parameter(_, let c):
            return c
        }
    }

    /// Where the expression's text begins: `column` names the operator or member a node is about (the
    /// `views` of `post?.views`), this the first character of its leftmost operand (the `post`), for
    /// errors about the whole value.
    public var startColumn: Int {
        var node = self
        while true {
            switch node {
            case .member(let base?, _, _), .optionalChain(let base, _), .forceUnwrap(let base, _), .call(let base, _, _, _),
                 .binary(_, let base, _, _), .conditional(let base, _, _, _):
                node = base
            default:
                return node.column
            }
        }
    }
}
