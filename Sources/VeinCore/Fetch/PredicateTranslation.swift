import Foundation
import Vein

/// `#Predicate` to the engine: Foundation's `PredicateExpressions` tree, walked node by node, becomes the
/// engine's `ParsedExpression` (key paths through the model's generated key path → field table), which
/// the engine's type checker then checks as it checks the CLI's language, so it compiles to the same SQL.
/// A node with no translation, or a tree the checker refuses, gives nil: the caller then evaluates the
/// predicate with Foundation in memory. Nothing here traps.
enum PredicateTranslation {
    static func typedExpression<T: PersistentModel>(_ predicate: Predicate<T>, manifest: SchemaManifest) -> TypedExpression? {
        guard let model = manifest.model(named: T.modelName) else { return nil }
        let translator = PredicateTranslator(bindings: [predicate.variable.key: .object])
        guard let parsed = translator.translate(predicate.expression) else { return nil }
        return try? TypeChecker(manifest: manifest, model: model, source: "").checkCondition(parsed)
    }
}

/// The names in scope while walking: the object tested, closure parameters, optional-chain bases.
struct PredicateTranslator {
    enum Binding {
        /// The object the predicate tests: its fields are bare names.
        case object
        /// The parameter of a closure over a to-many's members.
        case parameter(String)
        /// The value a `flatMap` (`?.`) unwraps: members on it continue the optional chain.
        case chained(ParsedExpression)
    }

    var bindings: [PredicateExpressions.VariableID: Binding]
    var closureDepth = 0

    func translate(_ node: Any) -> ParsedExpression? {
        (node as? any VeinTranslatableExpression)?.veinExpression(self)
    }

    func binding(of node: Any) -> Binding? {
        (node as? any VeinVariableExpression).flatMap { bindings[$0.variableKey] }
    }

    func binding(_ variable: PredicateExpressions.VariableID, to value: Binding) -> PredicateTranslator {
        var inner = self
        inner.bindings[variable] = value
        return inner
    }

    static func binary(_ op: String, _ t: PredicateTranslator, _ lhs: Any, _ rhs: Any) -> ParsedExpression? {
        guard let left = t.translate(lhs), let right = t.translate(rhs) else { return nil }
        return .binary(op: op, left: left, right: right, column: 0)
    }

    static func call(_ t: PredicateTranslator, _ base: Any, _ name: String, label: String? = nil, _ argument: Any) -> ParsedExpression? {
        guard let base = t.translate(base), let argument = t.translate(argument) else { return nil }
        return .call(base: base, name: name, arguments: [.init(label: label, value: argument)], column: 0)
    }

    /// `contains(where:)` and `allSatisfy` on a to-many: the closure's variable becomes a parameter.
    static func quantifier(_ t: PredicateTranslator, _ name: String, label: String?, _ sequence: Any,
                           _ variable: PredicateExpressions.VariableID, _ test: Any) -> ParsedExpression? {
        guard let list = t.translate(sequence) else { return nil }
        let parameter = "p\(t.closureDepth + 1)"
        var inner = t.binding(variable, to: .parameter(parameter))
        inner.closureDepth += 1
        guard let body = inner.translate(test) else { return nil }
        return .call(base: list, name: name, arguments: [.init(label: label, value: .closure(parameter: parameter, body: body, column: 0))],
                     column: 0)
    }
}

protocol VeinTranslatableExpression {
    func veinExpression(_ translator: PredicateTranslator) -> ParsedExpression?
}

protocol VeinVariableExpression {
    var variableKey: PredicateExpressions.VariableID { get }
}

// MARK: Leaves

extension PredicateExpressions.Variable: VeinVariableExpression, VeinTranslatableExpression {
    var variableKey: PredicateExpressions.VariableID { key }

    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        switch t.bindings[key] {
        case .parameter(let name)?: return .parameter(name, column: 0)
        case .chained(let base)?: return base
        case .object?, nil: return nil  // the object itself (`$0 == other`) is not a value the engine compares
        }
    }
}

extension PredicateExpressions.Value: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateLiteral.expression(value) }
}

extension PredicateExpressions.NilLiteral: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { .literal(.null, column: 0) }
}

extension PredicateExpressions.KeyPath: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        let base: ParsedExpression?
        switch t.binding(of: root) {
        case .object?: base = nil
        case .parameter(let name)?: base = .parameter(name, column: 0)
        case .chained(let chain)?: base = chain
        case nil:
            guard let translated = t.translate(root) else { return nil }
            base = translated
        }
        if let model = Root.Output.self as? any PersistentModel.Type {
            if PredicateLiteral.isIdentity(model, keyPath) {
                return .member(base: base, name: StoreFormat.current.keyColumn, column: 0)
            }
            guard let name = PredicateLiteral.propertyName(model, keyPath) else { return nil }
            return .member(base: base, name: name, column: 0)
        }
        guard let base, let members = Root.Output.self as? any VeinKnownMembers.Type,
              let name = members.veinMemberName(keyPath) else { return nil }
        return .member(base: base, name: name, column: 0)
    }
}

/// Members of values the engine's language knows (`title.count`, `attachments.isEmpty`).
protocol VeinKnownMembers {
    static func veinMemberName(_ keyPath: AnyKeyPath) -> String?
}

extension String: VeinKnownMembers {
    static func veinMemberName(_ keyPath: AnyKeyPath) -> String? {
        keyPath == \String.count ? "count" : keyPath == \String.isEmpty ? "isEmpty" : nil
    }
}

extension Array: VeinKnownMembers {
    static func veinMemberName(_ keyPath: AnyKeyPath) -> String? {
        keyPath == \Self.count ? "count" : keyPath == \Self.isEmpty ? "isEmpty" : nil
    }
}

/// Captured values as the engine's literals; nil for a type the engine has no literal for (it falls back).
enum PredicateLiteral {
    static func expression(_ value: Any) -> ParsedExpression? {
        let literal: ParsedExpression.Literal
        switch value {
        case let optional as any OptionalValue:
            guard let wrapped = optional.wrappedValue else { return .literal(.null, column: 0) }
            return expression(wrapped)
        case let v as Int: literal = .int(Int64(v))
        case let v as Double: literal = .double(v)
        case let v as String: literal = .string(v)
        case let v as Bool: literal = .bool(v)
        case let v as Date: literal = .date(v.timeIntervalSince1970)
        // A uuid-typed literal: the engine compares it with a uuid field as the stored text (== and != only).
        case let v as UUID: literal = .uuid(v)
        case let v as PersistentIdentifier: literal = .id(v.key)
        case let v as any RawRepresentable: return enumExpression(v)
        case let items as [Any]:
            var elements: [ParsedExpression] = []
            for item in items {
                guard let element = expression(item) else { return nil }
                elements.append(element)
            }
            return .array(elements, column: 0)
        default: return nil
        }
        return .literal(literal, column: 0)
    }

    /// An enum case by its raw value: the engine names a String-valued case of an `enum` field (a
    /// `CaseIterable` enum's) `.raw`, compares one of a `string` field as the text and an Int-valued one as
    /// its number.
    private static func enumExpression<E: RawRepresentable>(_ value: E) -> ParsedExpression? {
        switch value.rawValue {
        case let raw as String: return value is any CaseIterable ? .enumCase(raw, column: 0) : .literal(.string(raw), column: 0)
        case let raw as Int: return .literal(.int(Int64(raw)), column: 0)
        default: return nil
        }
    }

    /// Whether `keyPath` is `\.persistentModelID`: the row key (`item.persistentModelID == id`, the
    /// article's delete by identifier), compared in SQL as the key column.
    static func isIdentity<M: PersistentModel>(_ model: M.Type, _ keyPath: AnyKeyPath) -> Bool {
        keyPath == \M.persistentModelID
    }

    static func propertyName<M: PersistentModel>(_ model: M.Type, _ keyPath: AnyKeyPath) -> String? {
        (keyPath as? PartialKeyPath<M>).flatMap { M.propertyName(for: $0) }
    }
}

protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedValue: Any? { map { $0 as Any } }
}

// MARK: Operators

extension PredicateExpressions.Equal: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("==", t, lhs, rhs) }
}

extension PredicateExpressions.NotEqual: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("!=", t, lhs, rhs) }
}

extension PredicateExpressions.Comparison: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        @unknown default: return nil
        }
        return PredicateTranslator.binary(symbol, t, lhs, rhs)
    }
}

extension PredicateExpressions.Conjunction: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("&&", t, lhs, rhs) }
}

extension PredicateExpressions.Disjunction: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("||", t, lhs, rhs) }
}

extension PredicateExpressions.Negation: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        t.translate(wrapped).map { .unary(op: "!", operand: $0, column: 0) }
    }
}

extension PredicateExpressions.Arithmetic: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        let symbol: String
        switch op {
        case .add: symbol = "+"
        case .subtract: symbol = "-"
        case .multiply: symbol = "*"
        @unknown default: return nil
        }
        return PredicateTranslator.binary(symbol, t, lhs, rhs)
    }
}

extension PredicateExpressions.FloatDivision: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("/", t, lhs, rhs) }
}

extension PredicateExpressions.IntDivision: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("/", t, lhs, rhs) }
}

extension PredicateExpressions.IntRemainder: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("%", t, lhs, rhs) }
}

extension PredicateExpressions.UnaryMinus: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        t.translate(wrapped).map { .unary(op: "-", operand: $0, column: 0) }
    }
}

extension PredicateExpressions.Conditional: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        guard let condition = t.translate(test), let then = t.translate(trueBranch), let otherwise = t.translate(falseBranch) else { return nil }
        return .conditional(condition, then, otherwise, column: 0)
    }
}

// MARK: Optionals

extension PredicateExpressions.NilCoalesce: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("??", t, lhs, rhs) }
}

extension PredicateExpressions.ForcedUnwrap: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        t.translate(inner).map { .forceUnwrap($0, column: 0) }
    }
}

/// `x?.member` is `x.flatMap { $0.member }` in a `#Predicate`: the closure's variable stands for `x?`, so
/// a member on it continues the optional chain. Any other use of the variable leaves a bare `x?`, which
/// the type checker refuses (and the predicate falls back).
extension PredicateExpressions.OptionalFlatMap: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        guard let base = t.translate(self.wrapped) else { return nil }
        return t.binding(variable.key, to: .chained(.optionalChain(base, column: 0))).translate(transform)
    }
}

// MARK: Strings, sequences, ranges

extension PredicateExpressions.CollectionContainsCollection: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        guard Base.Output.self == String.self else { return nil }
        return PredicateTranslator.call(t, base, "contains", other)
    }
}

/// The engine's `localizedStandardContains`, which it evaluates with Foundation's method after whatever
/// the rest of the condition narrows in SQL (SQLite folds neither case beyond ASCII nor diacritics).
extension PredicateExpressions.StringLocalizedStandardContains: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        PredicateTranslator.call(t, root, "localizedStandardContains", other)
    }
}

extension PredicateExpressions.SequenceStartsWith: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        guard Base.Output.self == String.self else { return nil }
        return PredicateTranslator.call(t, base, "starts", label: "with", prefix)
    }
}

extension PredicateExpressions.SequenceContains: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        // A captured array (`[a, b].contains($0.x)`); a stored list (json) has no translation.
        guard sequence is any VeinValueExpression else { return nil }
        return PredicateTranslator.call(t, sequence, "contains", element)
    }
}

/// A captured value, as opposed to a path into the object.
protocol VeinValueExpression {}
extension PredicateExpressions.Value: VeinValueExpression {}

extension PredicateExpressions.SequenceContainsWhere: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        PredicateTranslator.quantifier(t, "contains", label: "where", sequence, variable.key, test)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? {
        PredicateTranslator.quantifier(t, "allSatisfy", label: nil, sequence, variable.key, test)
    }
}

extension PredicateExpressions.ClosedRange: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("...", t, lower, upper) }
}

extension PredicateExpressions.Range: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.binary("..<", t, lower, upper) }
}

extension PredicateExpressions.RangeExpressionContains: VeinTranslatableExpression {
    func veinExpression(_ t: PredicateTranslator) -> ParsedExpression? { PredicateTranslator.call(t, range, "contains", element) }
}
