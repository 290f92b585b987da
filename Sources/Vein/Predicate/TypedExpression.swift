import Foundation

/// The type of an expression value, as Swift would see it.
public indirect enum ValueType: Equatable, Sendable, CustomStringConvertible {
    case string, int, double, bool, date, data, uuid, json
    /// A row id (`#id`, a to-one relationship's value).
    case id
    /// An enum field's raw values.
    case enumeration([JSONValue])
    /// A to-many relationship: ids of `model` rows.
    case toMany(String)
    case array(ValueType)
    case optional(ValueType)
    /// The type of a bare `nil`.
    case null

    public var isOptional: Bool {
        switch self {
        case .optional, .null: return true
        default: return false
        }
    }
    public var unwrapped: ValueType {
        if case .optional(let t) = self { return t }
        return self
    }
    public var optionalized: ValueType { isOptional ? self : .optional(self) }

    public var description: String {
        if let field = plainFieldType, let swiftName = field.facts.swiftName { return swiftName }
        switch self {
        case .id: return "ID"
        case .enumeration: return "enum"
        case .toMany(let m): return "[\(m)]"
        case .array(let t): return "[\(t)]"
        case .optional(let t): return "\(t)?"
        case .null: return "nil"
        default: preconditionFailure("\(self) is a field type with no Swift name")
        }
    }

    /// The field type whose values this type is, for the plain ones (not an id, an enum, a list, an
    /// optional or nil): their names come from the field type's facts.
    var plainFieldType: FieldType? {
        switch self {
        case .string: return .string
        case .int: return .int
        case .double: return .double
        case .bool: return .bool
        case .date: return .date
        case .data: return .data
        case .uuid: return .uuid
        case .json: return .json
        default: return nil
        }
    }

    /// The plain types by the field type they hold: `plainFieldType` read backwards.
    private static let byFieldType: [FieldType: ValueType] = Dictionary(uniqueKeysWithValues:
        [ValueType.string, .int, .double, .bool, .date, .data, .uuid, .json].map { ($0.plainFieldType!, $0) })

    /// Types whose values Swift orders with `<`.
    var isComparable: Bool {
        switch self {
        case .string, .int, .double, .date, .id: return true
        default: return false
        }
    }

    /// A field's type in the expression language.
    static func of(_ field: FieldSchema) -> ValueType {
        let base = field.type == .enum ? .enumeration(field.enumValues) : byFieldType[field.type]!
        return field.isOptional ? .optional(base) : base
    }
}

/// A type-checked expression over one model: every name resolved, every operand's type known.
public indirect enum TypedExpression: Equatable, Sendable {
    /// Where a column lives: the object in scope, or the target of its to-one relationship (one hop).
    public struct ColumnPath: Equatable, Sendable {
        /// The to-one relationship crossed first, if any.
        public let hop: RelationshipSchema?
        public let column: String
        /// The stored type of the column (the id column is `.id`, a to-many `.toMany`).
        public let storedType: ValueType
        /// Whose column: 0 for the object tested, n for the parameter of the n-th closure it is inside
        /// (`attachments.contains { $0.sizeMiB > 1 }` reads `sizeMiB` at scope 1).
        public var scope = 0
    }

    /// What a closure over a to-many's members asks: `contains(where:)`, `allSatisfy`.
    public enum Quantifier: Equatable, Sendable {
        case any, all
    }

    case literal(Value, ValueType)
    case column(ColumnPath, ValueType)
    case not(TypedExpression)
    case negate(TypedExpression, ValueType)
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`
    case compare(String, TypedExpression, TypedExpression)
    case and(TypedExpression, TypedExpression)
    case or(TypedExpression, TypedExpression)
    /// `+ - * / %` on Int, Double (and `+` on String)
    case arithmetic(String, TypedExpression, TypedExpression, ValueType)
    case coalesce(TypedExpression, TypedExpression, ValueType)
    /// `x!`: an error on a row where `x` is nil, as Swift traps.
    case forceUnwrap(TypedExpression, ValueType)
    /// `c ? a : b`: only the branch taken is evaluated.
    case conditional(TypedExpression, TypedExpression, TypedExpression, ValueType)
    /// contains, hasPrefix, hasSuffix, starts(with:), localizedStandardContains (Bool);
    /// lowercased, uppercased (String); count (Int); isEmpty (Bool)
    case stringMethod(String, TypedExpression, TypedExpression?, ValueType)
    /// `[a, b].contains(x)`
    case inList([TypedExpression], TypedExpression)
    /// to-many `count`, `isEmpty`, `contains(#id(…))`
    case toManyCount(TypedExpression)
    case toManyContains(TypedExpression, TypedExpression)
    /// `list.contains { … }` / `list.allSatisfy { … }`: the predicate reads the member at the next scope.
    case toManyQuantifier(Quantifier, TypedExpression, TypedExpression)
    /// `list.filter { … }`, a to-many of the members the predicate accepts (for `.count`, `.isEmpty`, …).
    case toManyFilter(TypedExpression, TypedExpression)
    /// `(lower...upper).contains(x)` (`closed`) and `(lower..<upper).contains(x)`.
    case rangeContains(TypedExpression, TypedExpression, closed: Bool, TypedExpression)

    public var type: ValueType {
        switch self {
        case .literal(_, let t), .column(_, let t), .negate(_, let t), .arithmetic(_, _, _, let t), .coalesce(_, _, let t),
             .forceUnwrap(_, let t), .conditional(_, _, _, let t), .stringMethod(_, _, _, let t):
            return t
        case .not, .compare, .and, .or, .inList, .toManyContains, .toManyQuantifier, .rangeContains: return .bool
        case .toManyCount: return .int
        case .toManyFilter(let list, _): return list.type
        }
    }
}

extension TypedExpression {
    /// Whether evaluating it reads objects other than the one tested: a to-one hop, a to-many.
    var readsOtherObjects: Bool {
        switch self {
        case .literal: return false
        case .column(let path, _):
            if case .toMany = path.storedType { return true }
            return path.hop != nil
        case .toManyQuantifier, .toManyFilter: return true
        case .not(let a), .negate(let a, _), .forceUnwrap(let a, _), .toManyCount(let a): return a.readsOtherObjects
        case .compare(_, let a, let b), .and(let a, let b), .or(let a, let b), .arithmetic(_, let a, let b, _), .coalesce(let a, let b, _),
             .toManyContains(let a, let b):
            return a.readsOtherObjects || b.readsOtherObjects
        case .conditional(let c, let a, let b, _): return c.readsOtherObjects || a.readsOtherObjects || b.readsOtherObjects
        case .stringMethod(_, let base, let argument, _): return base.readsOtherObjects || (argument?.readsOtherObjects ?? false)
        case .inList(let items, let needle): return needle.readsOtherObjects || items.contains { $0.readsOtherObjects }
        case .rangeContains(let lower, let upper, _, let needle):
            return lower.readsOtherObjects || upper.readsOtherObjects || needle.readsOtherObjects
        }
    }
}
