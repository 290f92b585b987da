import Foundation

/// Why an expression could not be evaluated on a row: the cases where Swift itself would trap.
public enum EvaluationError: Error, Equatable, Sendable, CustomStringConvertible {
    case arithmeticOverflow(String)
    case divisionByZero
    /// The expression is nested deeper than this thread's stack allows evaluating.
    case nestedTooDeeply
    /// `x!` on a nil.
    case unexpectedNil
    /// A closure over a to-many evaluated where the caller gave no way to read the members (a bug).
    case membersUnavailable(String)
    /// `(a...b)` or `(a..<b)` with `a > b` (or a NaN bound).
    case invalidRange

    public var description: String {
        switch self {
        case .divisionByZero: return "division by zero"
        case .arithmeticOverflow(let what): return "arithmetic overflow in \(what)"
        case .nestedTooDeeply: return "the expression is nested too deeply for this thread's stack"
        case .unexpectedNil: return "unexpectedly found nil while unwrapping an Optional value"
        case .invalidRange: return "Range requires lowerBound <= upperBound"
        case .membersUnavailable(let name): return "the members of \(name) cannot be read here"
        }
    }
}

/// Evaluates typed expressions in memory with Swift's own semantics: Swift's `==` and `<` on String
/// (canonical equivalence), Character-based `count` and `contains` (as `#Predicate` evaluates it),
/// Foundation's `localizedStandardContains`, `nil` equal only to `nil`. It is the reference the SQL compiler must
/// agree with, and it runs for pending changes and for whatever SQL cannot express exactly.
package struct Evaluator {
    /// Reads a column of the row under test (through a hop when the path has one).
    public typealias ColumnReader = (TypedExpression.ColumnPath) throws -> Value

    /// One object an expression reads: its columns, and the members of its to-manys (in the
    /// relationship's order), for closures (`attachments.contains { $0.sizeMiB > 1 }`).
    public struct Scope {
        public let read: ColumnReader
        public let members: (TypedExpression.ColumnPath) throws -> [Scope]

        public init(read: @escaping ColumnReader, members: @escaping (TypedExpression.ColumnPath) throws -> [Scope] = Scope.noMembers) {
            self.read = read
            self.members = members
        }

        /// For callers that evaluate no closure over a to-many (inserted values, tests).
        public static func noMembers(_ path: TypedExpression.ColumnPath) throws -> [Scope] {
            throw EvaluationError.membersUnavailable(path.column)
        }
    }

    /// The object tested (scope 0), then the parameter of each closure being evaluated.
    let scopes: [Scope]

    public init(read: @escaping ColumnReader) {
        self.scopes = [Scope(read: read)]
    }

    public init(_ scope: Scope) {
        self.scopes = [scope]
    }

    private init(scopes: [Scope]) {
        self.scopes = scopes
    }

    private func read(_ path: TypedExpression.ColumnPath) throws -> Value {
        try scopes[path.scope].read(path)
    }

    /// The members of a to-many (`list`), as scopes, filters applied.
    private func members(_ list: TypedExpression) throws -> [Scope] {
        switch list {
        case .column(let path, _): return try scopes[path.scope].members(path)
        case .toManyFilter(let inner, let predicate): return try members(inner).filter { try inClosure($0).test(predicate) }
        default: return []
        }
    }

    /// Evaluates a closure's body with `member` as its parameter.
    private func inClosure(_ member: Scope) -> Evaluator {
        Evaluator(scopes: scopes + [member])
    }

    /// Evaluates a predicate; a non-Bool result is false.
    public func test(_ predicate: TypedExpression) throws -> Bool {
        try evaluate(predicate) == .bool(true)
    }

    public func evaluate(_ e: TypedExpression) throws -> Value {
        guard StackSpace.hasRoom(StackSpace.passReserve) else { throw EvaluationError.nestedTooDeeply }
        switch e {
        case .literal(let v, _): return v
        case .column(let path, _): return try read(path)
        case .not(let a): return .bool(try evaluate(a) != .bool(true))
        case .negate(let a, _): return try Self.negate(try evaluate(a))
        case .and(let a, let b): return .bool(try test(a) && test(b))
        case .or(let a, let b): return .bool(try test(a) || test(b))
        case .compare(let op, let a, let b): return .bool(Self.compare(op, try evaluate(a), try evaluate(b)))
        case .arithmetic(let op, let a, let b, _): return try Self.arithmetic(op, try evaluate(a), try evaluate(b))
        case .conditional(let c, let a, let b, _): return try test(c) ? evaluate(a) : evaluate(b)
        case .forceUnwrap(let a, _):
            let value = try evaluate(a)
            guard value != .null else { throw EvaluationError.unexpectedNil }
            return value
        case .coalesce(let a, let b, _):
            let left = try evaluate(a)
            return left == .null ? try evaluate(b) : left
        case .stringMethod(let name, let base, let argument, _):
            guard case .string(let s) = try evaluate(base) else { return .null }
            let other = try argument.map { try evaluate($0).stringValue ?? "" } ?? ""
            return Self.stringMethod(name, s, other)
        case .inList(let items, let needle):
            // As Swift: the array is built (every element, in order) before the argument is evaluated.
            let elements = try items.map { try evaluate($0) }
            let value = try evaluate(needle)
            return .bool(elements.contains { Self.compare("==", value, $0) })
        case .toManyCount(.toManyFilter(let list, let predicate)):
            return .int(Int64(try members(.toManyFilter(list, predicate)).count))
        case .toManyCount(let a):
            guard case .array(let ids) = try evaluate(a) else { return .int(0) }
            return .int(Int64(ids.count))
        case .toManyContains(let a, let needle):
            guard case .array(let ids) = try evaluate(a) else { return .bool(false) }
            let value = try evaluate(needle)
            return .bool(value != .null && ids.contains(value))
        case .toManyFilter:
            // The members' ids, as a to-many's value is.
            let idPath = TypedExpression.ColumnPath(hop: nil, column: StoreFormat.current.keyColumn, storedType: .id, scope: scopes.count)
            return .array(try members(e).map { try $0.read(idPath) })
        case .toManyQuantifier(let quantifier, let list, let predicate):
            // In the relationship's order, stopping at the first member that decides, as Swift's
            // `contains(where:)` and `allSatisfy` do (a later member's error is never met).
            for member in try members(list) {
                let answer = try inClosure(member).test(predicate)
                if quantifier == .any && answer { return .bool(true) }
                if quantifier == .all && !answer { return .bool(false) }
            }
            return .bool(quantifier == .all)
        case .rangeContains(let lower, let upper, let closed, let needle):
            // As Swift: the range is formed (and checked) before the argument is evaluated.
            let low = try evaluate(lower), high = try evaluate(upper)
            guard Self.compare("<=", low, high) else { throw EvaluationError.invalidRange }
            let value = try evaluate(needle)
            return .bool(Self.compare("<=", low, value) && Self.compare(closed ? "<=" : "<", value, high))
        }
    }

    /// A String method on `s` (`other`: its argument, "" for none), as Swift answers it. The SQL functions
    /// that run these inside a scan (`SwiftStringFunctions`) call it too, so both give one answer.
    static func stringMethod(_ name: String, _ s: String, _ other: String) -> Value {
        switch name {
        case "contains": return .bool(contains(s, other))
        case "hasPrefix": return .bool(s.hasPrefix(other))
        case "hasSuffix": return .bool(s.hasSuffix(other))
        case "localizedStandardContains": return .bool(s.localizedStandardContains(other))
        case "lowercased": return .string(s.lowercased())
        case "uppercased": return .string(s.uppercased())
        case "count": return .int(Int64(s.count))
        case "isEmpty": return .bool(s.isEmpty)
        default: return .null
        }
    }

    /// `#Predicate`'s `contains` on strings: the Characters of `needle` occur one after another in
    /// `text` (an empty needle everywhere). Foundation's `String.contains` differs: it matches inside a
    /// Character (`"👍🏽"` contains `"🏽"`, `"\r\n"` contains `"\n"`) and finds no empty string.
    static func contains(_ text: String, _ needle: String) -> Bool {
        let needle = Array(needle)
        guard let first = needle.first else { return true }
        let text = Array(text)
        guard needle.count <= text.count else { return false }
        for start in 0...(text.count - needle.count) where text[start] == first {
            if text[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }

    /// Swift's comparison of two values of one (unified) type; `nil == nil`, `nil != x`.
    static func compare(_ op: String, _ a: Value, _ b: Value) -> Bool {
        if op == "==" { return equal(a, b) }
        if op == "!=" { return !equal(a, b) }
        let ordered: Bool?
        switch (a, b) {
        case (.int(let x), .int(let y)): ordered = order(op, x, y)
        case (.double(let x), .double(let y)), (.date(let x), .date(let y)): ordered = order(op, x, y)
        case (.string(let x), .string(let y)): ordered = order(op, x, y)
        default: ordered = nil
        }
        return ordered ?? false
    }

    private static func order<T: Comparable>(_ op: String, _ x: T, _ y: T) -> Bool {
        switch op {
        case "<": return x < y
        case "<=": return x <= y
        case ">": return x > y
        default: return x >= y
        }
    }

    static func equal(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)): return x == y  // canonical equivalence, as Swift
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)), (.date(let x), .date(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        default: return a == b
        }
    }

    static func negate(_ a: Value) throws -> Value {
        switch a {
        case .int(let v):
            guard v != .min else { throw EvaluationError.arithmeticOverflow("-(\(v))") }
            return .int(-v)
        case .double(let v): return .double(-v)
        default: return .null
        }
    }

    /// Swift's checked arithmetic: integer overflow and division by zero throw, as Swift traps.
    static func arithmetic(_ op: String, _ a: Value, _ b: Value) throws -> Value {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let result: (partialValue: Int64, overflow: Bool)
            switch op {
            case "+": result = x.addingReportingOverflow(y)
            case "-": result = x.subtractingReportingOverflow(y)
            case "*": result = x.multipliedReportingOverflow(by: y)
            case "/":
                guard y != 0 else { throw EvaluationError.divisionByZero }
                result = x.dividedReportingOverflow(by: y)
            default:
                guard y != 0 else { throw EvaluationError.divisionByZero }
                result = x.remainderReportingOverflow(dividingBy: y)
            }
            if result.overflow { throw EvaluationError.arithmeticOverflow("\(x) \(op) \(y)") }
            return .int(result.partialValue)
        case (.double(let x), .double(let y)):
            switch op {
            case "+": return .double(x + y)
            case "-": return .double(x - y)
            case "*": return .double(x * y)
            default: return .double(x / y)
            }
        case (.string(let x), .string(let y)): return .string(x + y)
        default: return .null
        }
    }
}

extension Value {
    /// The expression value of a stored column, by its expression type (the id column and a to-many
    /// included, which no field codec covers). The engine reads cells through `FieldCodec` instead;
    /// the differential tests read their oracle rows with this.
    public init(_ value: DatabaseValue, type: ValueType) {
        if case .null = value { self = .null; return }
        switch type.unwrapped {
        case .string, .uuid, .json, .id: self = .string(value.string ?? "")
        case .int: self = .int(value.int64 ?? 0)
        case .double: self = .double(value.double ?? 0)
        case .bool: self = .bool((value.int64 ?? 0) != 0)
        case .date: self = .date(value.double ?? 0)
        case .data: self = .data(value.data ?? Data())
        case .enumeration: self = value.int64.map(Value.int) ?? .string(value.string ?? "")
        case .toMany:
            let ids = (try? JSONParser.parse(value.string ?? "[]"))?.arrayValue ?? []
            self = .array(ids.compactMap { $0.stringValue.map(Value.string) })
        case .array, .optional, .null: self = .null
        }
    }
}
