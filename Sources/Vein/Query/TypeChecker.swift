/// Resolves names against a model and checks types with Swift's rules, before anything runs: what Swift
/// would refuse to compile in a `#Predicate`, Vein refuses here, with a caret under the place.
public struct TypeChecker {
    public let manifest: SchemaManifest
    public let model: ModelSchema
    let source: String
    /// Set while checking integer-literal arithmetic in a Double context (`check(_:context:)`).
    private var integerLiteralsAreDouble = false

    public init(manifest: SchemaManifest, model: ModelSchema, source: String) {
        self.manifest = manifest
        self.model = model
        self.source = source
    }

    /// Parses and checks a condition: it must be a Bool.
    public static func checkPredicate(_ source: String, model: ModelSchema, manifest: SchemaManifest) throws(ExpressionError) -> TypedExpression {
        let expression = try ExpressionParser.parse(source)
        let checker = TypeChecker(manifest: manifest, model: model, source: source)
        let typed = try checker.check(expression)
        guard typed.type == .bool else {
            throw checker.error("a condition must be a Bool, not \(typed.type)", expression.column)
        }
        return typed
    }

    func error(_ message: String, _ column: Int) -> ExpressionError {
        ExpressionError(message, column: column, source: source)
    }

    public func check(_ expression: Expression) throws(ExpressionError) -> TypedExpression {
        guard StackSpace.hasRoom(StackSpace.passReserve) else {
            throw error("the expression is nested too deeply for this thread's stack", expression.column)
        }
        switch expression {
        case .literal(.int(let v), _) where integerLiteralsAreDouble: return .literal(.double(Double(v)), .double)
        case .literal(let literal, _): return Self.typed(literal)
        case .enumCase(let name, let column):
            throw error("cannot infer the type of .\(name); compare it with an enum field", column)
        case .array(_, let column):
            throw error("an array literal can only be used with .contains(…)", column)
        case .member(let base, let name, let column): return try member(base, name, column)
        case .optionalChain(let base, let column): throw try unsupportedChain(base, column)
        case .conditional(let condition, let then, let otherwise, let column):
            return try conditional(condition, then, otherwise, column)
        case .forceUnwrap(let operand, let column):
            let typed = try check(operand)
            guard typed.type != .null else { throw error("'nil' cannot be force unwrapped", column) }
            guard typed.type.isOptional else {
                throw error("cannot force unwrap value of non-optional type \(typed.type)", column)
            }
            return .forceUnwrap(typed, typed.type.unwrapped)
        case .call(let base, let name, let arguments, let column): return try call(base, name, arguments, column)
        case .unary(let op, let operand, let column):
            let typed = try check(operand)
            if op == "!" {
                guard typed.type == .bool else { throw error("'!' needs a Bool, not \(typed.type)", column) }
                return .not(typed)
            }
            guard typed.type == .int || typed.type == .double else { throw error("'-' needs a number, not \(typed.type)", column) }
            return .negate(typed, typed.type)
        case .binary(let op, let left, let right, let column): return try binary(op, left, right, column)
        }
    }

    /// Checks `expression` where Swift knows the type it must have. Swift types an integer literal by its
    /// context, and so an expression made only of integer literals: where a Double is wanted, `1 / 2` is
    /// `0.5` (Double division), not `0`. Any other expression keeps its own type (`views / 2` stays Int).
    public func check(_ expression: Expression, context: ValueType) throws(ExpressionError) -> TypedExpression {
        guard context.unwrapped == .double, Self.isIntegerLiteralArithmetic(expression) else { return try check(expression) }
        var inDoubleContext = self
        inDoubleContext.integerLiteralsAreDouble = true
        return try inDoubleContext.check(expression)
    }

    /// Integer literals joined by `+ - * /` and prefix `-` (`%` is not defined on Double, so an expression
    /// with it stays Int, as Swift would have it). A loop, not recursion: it runs at any nesting depth.
    static func isIntegerLiteralArithmetic(_ expression: Expression) -> Bool {
        var pending = [expression]
        while let next = pending.popLast() {
            switch next {
            case .literal(.int, _): continue
            case .unary("-", let operand, _): pending.append(operand)
            case .binary(let op, let left, let right, _) where ["+", "-", "*", "/"].contains(op): pending += [left, right]
            default: return false
            }
        }
        return true
    }

    static func typed(_ literal: Expression.Literal) -> TypedExpression {
        switch literal {
        case .int(let v): return .literal(.int(v), .int)
        case .double(let v): return .literal(.double(v), .double)
        // In the form stored text takes, so SQL's byte comparisons meet Swift's canonical equivalence.
        case .string(let s): return .literal(.string(NormalForm.text(s)), .string)
        case .bool(let b): return .literal(.bool(b), .bool)
        case .null: return .literal(.null, .null)
        case .date(let d): return .literal(.date(d), .date)
        case .id(let s): return .literal(.string(s), .id)
        }
    }

    // MARK: Names

    private func resolve(_ name: String, in model: ModelSchema, column: Int, hop: RelationshipSchema?) throws(ExpressionError) -> TypedExpression {
        if name == "id" {
            let path = TypedExpression.ColumnPath(hop: hop, column: "id", storedType: .id)
            return .column(path, hop == nil ? .id : .optional(.id))
        }
        if let field = model.field(named: name) {
            let type = ValueType.of(field)
            return .column(TypedExpression.ColumnPath(hop: hop, column: name, storedType: type), hop == nil ? type : type.optionalized)
        }
        if let rel = model.relationship(named: name) {
            if rel.isToMany {
                guard hop == nil else { throw error("only one relationship hop is allowed", column) }
                return .column(TypedExpression.ColumnPath(hop: nil, column: name, storedType: .toMany(rel.target)), .toMany(rel.target))
            }
            return .column(TypedExpression.ColumnPath(hop: hop, column: name, storedType: .optional(.id)), .optional(.id))
        }
        throw error("no field '\(name)' in \(model.name)" + Suggestion.hint(for: name, in: ["id"] + model.columnNames, quote: "'"), column)
    }

    private func member(_ base: Expression?, _ name: String, _ column: Int) throws(ExpressionError) -> TypedExpression {
        guard let base else { return try resolve(name, in: model, column: column, hop: nil) }
        // One hop through a to-one relationship, which is optional as in Swift: `post?.title`, whose type
        // is optional (flattened: `post?.rating` is `Int?` whether `rating` is `Int` or `Int?`).
        if case .optionalChain(.member(nil, let relName, _), _) = base, let target = toOneTarget(relName) {
            return try resolve(name, in: target, column: column, hop: model.relationship(named: relName))
        }
        if case .member(nil, let relName, let relColumn) = base, toOneTarget(relName) != nil {
            throw error("\(relName) is optional: write \(relName)?.\(name)", relColumn)
        }
        if case .optionalChain(let inner, let chainColumn) = base { throw try unsupportedChain(inner, chainColumn) }
        let typed = try check(base)
        switch (typed.type, name) {
        case (.toMany, "count"): return .toManyCount(typed)
        case (.toMany, "isEmpty"): return .compare("==", .toManyCount(typed), .literal(.int(0), .int))
        case (.string, "count"): return .stringMethod("count", typed, nil, .int)
        case (.string, "isEmpty"): return .stringMethod("isEmpty", typed, nil, .bool)
        case (.optional(let inner), _):
            throw error("value of optional type \(inner)? must be unwrapped to use '\(name)' (use ?? to give a default)", column)
        default:
            throw error("\(typed.type) has no member '\(name)'", column)
        }
    }

    /// The model a to-one relationship of the model in scope leads to.
    private func toOneTarget(_ name: String) -> ModelSchema? {
        guard let rel = model.relationship(named: name), !rel.isToMany else { return nil }
        return manifest.model(named: rel.target)
    }

    /// `x?` anywhere but the one relationship hop: Swift's error on a non-optional, else what is supported.
    private func unsupportedChain(_ base: Expression, _ column: Int) throws(ExpressionError) -> ExpressionError {
        let typed = try check(base)
        guard typed.type.isOptional else {
            return error("cannot use optional chaining on non-optional value of type \(typed.type)", column)
        }
        return error("optional chaining is supported only through a to-one relationship (post?.title); use ?? to give a default", column)
    }

    private static let stringPredicates: Set<String> = ["contains", "hasPrefix", "hasSuffix", "starts", "localizedStandardContains"]

    private func call(_ base: Expression, _ name: String, _ arguments: [Expression.Argument], _ column: Int) throws(ExpressionError) -> TypedExpression {
        if case .array(let items, _) = base {
            guard name == "contains", arguments.count == 1, arguments[0].label == nil else {
                throw error("an array literal only supports .contains(value)", column)
            }
            let needleExpression = arguments[0].value
            var needle = try check(needleExpression)
            var typedItems: [TypedExpression] = []
            for item in items {
                let (element, adaptedNeedle) = try unify(item, needleExpression, allowOptional: true, column: item.column, op: "==")
                typedItems.append(element)
                needle = adaptedNeedle
            }
            return .inList(typedItems, needle)
        }
        if case .optionalChain(let inner, let chainColumn) = base { throw try unsupportedChain(inner, chainColumn) }
        let typedBase = try check(base)
        if case .toMany(let target) = typedBase.type {
            guard name == "contains", arguments.count == 1 else { throw error("[\(target)] has no method '\(name)'", column) }
            let needle = try check(arguments[0].value)
            guard needle.type.unwrapped == .id else { throw error("contains on a relationship takes an id: #id(\"…\")", arguments[0].value.column) }
            return .toManyContains(typedBase, needle)
        }
        if case .optional(let inner) = typedBase.type {
            throw error("value of optional type \(inner)? must be unwrapped to call '\(name)' (use ?? to give a default)", column)
        }
        guard typedBase.type == .string else { throw error("\(typedBase.type) has no method '\(name)'", column) }
        if name == "lowercased" || name == "uppercased" {
            guard arguments.isEmpty else { throw error("\(name)() takes no arguments", column) }
            return .stringMethod(name, typedBase, nil, .string)
        }
        guard Self.stringPredicates.contains(name) else {
            let known = Array(Self.stringPredicates) + ["lowercased", "uppercased", "count", "isEmpty"]
            throw error("String has no method '\(name)'" + Suggestion.hint(for: name, in: known, quote: "'"), column)
        }
        let expectedLabel: String? = name == "starts" ? "with" : nil
        guard arguments.count == 1, arguments[0].label == expectedLabel else {
            throw error(name == "starts" ? "use starts(with: \"…\")" : "\(name) takes one String argument", column)
        }
        let argument = try check(arguments[0].value)
        guard argument.type == .string else {
            throw error("\(name) needs a String argument, not \(argument.type)", arguments[0].value.column)
        }
        return .stringMethod(name == "starts" ? "hasPrefix" : name, typedBase, argument, .bool)
    }

    // MARK: Enums

    /// `.name` as a value of the enum `type`, or an error listing the enum's values.
    func enumCase(_ name: String, column: Int, type: ValueType) throws(ExpressionError) -> TypedExpression {
        guard case .enumeration(let values) = type else {
            throw error("cannot infer the type of .\(name); compare it with an enum field", column)
        }
        guard values.contains(.string(name)) else { throw notInEnum(".\(name)", name, values, column) }
        return .literal(.string(name), type)
    }

    /// "x is not one of the enum's values: .a, .b (did you mean '.a'?)"
    func notInEnum(_ shown: String, _ name: String?, _ values: [JSONValue], _ column: Int) -> ExpressionError {
        let cases = values.map { $0.stringValue.map { "." + $0 } ?? JSONWriter.string($0) }
        let hint = name.map { Suggestion.hint(for: "." + $0, in: cases, quote: "'") } ?? ""
        return error("\(shown) is not one of the enum's values: \(cases.joined(separator: ", "))" + hint, column)
    }

    // MARK: Operators

    /// Gives two operands one type as Swift would: integer literals (and arithmetic on them only) become
    /// Double next to a Double,
    /// `.case` becomes the enum's raw value, `nil` and values meet optionals.
    private func unify(_ left: Expression, _ right: Expression, allowOptional: Bool, column: Int, op: String) throws(ExpressionError) -> (TypedExpression, TypedExpression) {
        func adapt(_ e: Expression, to other: TypedExpression) throws(ExpressionError) -> TypedExpression {
            if case .enumCase(let name, let c) = e { return try enumCase(name, column: c, type: other.type.unwrapped) }
            let typed = try check(e, context: other.type)
            if case .literal(.string(let s), .string) = typed, case .enumeration(let values) = other.type.unwrapped {
                // The manifest's spelling, which is what is stored (a canonically equivalent literal matches it).
                guard let match = values.first(where: { $0 == .string(s) })?.stringValue else {
                    throw notInEnum(JSONWriter.string(.string(s)), s, values, e.column)
                }
                return .literal(.string(match), other.type.unwrapped)
            }
            if case .literal(.int(let v), .int) = typed, case .enumeration(let values) = other.type.unwrapped {
                guard values.contains(.int(v)) else { throw notInEnum("\(v)", nil, values, e.column) }
                return .literal(.int(v), other.type.unwrapped)
            }
            return typed
        }
        var a: TypedExpression, b: TypedExpression
        if case .enumCase = left {
            b = try check(right)
            a = try adapt(left, to: b)
        } else {
            a = try check(left)
            b = try adapt(right, to: a)
            if a.type == .int, b.type.unwrapped == .double { a = try check(left, context: b.type) }
            if case .literal = a, case .enumeration = b.type.unwrapped { a = try adapt(left, to: b) }
        }
        let ta = a.type, tb = b.type
        let compatible = ta.unwrapped == tb.unwrapped || ta == .null || tb == .null
            || (ta.unwrapped == .id && tb.unwrapped == .id)
        guard compatible else {
            throw error("cannot compare \(ta) with \(tb)", column)
        }
        if !allowOptional && (ta.isOptional || tb.isOptional) {
            throw error("'\(op)' cannot order optional values, as in Swift; unwrap with ?? first (for example (x ?? 0) \(op) y)", column)
        }
        return (a, b)
    }

    /// `c ? a : b`: a Bool condition, and branches of one type as Swift infers it (a literal takes the
    /// other branch's type, `nil` makes it optional).
    private func conditional(_ condition: Expression, _ then: Expression, _ otherwise: Expression, _ column: Int) throws(ExpressionError) -> TypedExpression {
        let c = try check(condition)
        guard c.type == .bool else { throw error("the condition of '? :' must be a Bool, not \(c.type)", condition.column) }
        var a: TypedExpression, b: TypedExpression
        if case .enumCase(let name, let enumColumn) = then {
            b = try check(otherwise)
            a = try enumCase(name, column: enumColumn, type: b.type.unwrapped)
        } else {
            a = try check(then)
            if case .enumCase(let name, let enumColumn) = otherwise { b = try enumCase(name, column: enumColumn, type: a.type.unwrapped) }
            else { b = try check(otherwise, context: a.type) }
            if a.type == .int, b.type.unwrapped == .double { a = try check(then, context: b.type) }
        }
        let type: ValueType
        switch (a.type, b.type) {
        case (let x, let y) where x == y: type = x
        case (.null, let y): type = y.optionalized
        case (let x, .null): type = x.optionalized
        case (let x, let y) where x.unwrapped == y.unwrapped: type = x.optionalized
        default: throw error("result values in '? :' expression have mismatching types \(a.type) and \(b.type)", column)
        }
        return .conditional(c, a, b, type)
    }

    private func binary(_ op: String, _ left: Expression, _ right: Expression, _ column: Int) throws(ExpressionError) -> TypedExpression {
        switch op {
        case "&&", "||":
            let a = try check(left), b = try check(right)
            guard a.type == .bool else { throw error("'\(op)' needs Bool operands, not \(a.type)", left.column) }
            guard b.type == .bool else { throw error("'\(op)' needs Bool operands, not \(b.type)", right.column) }
            return op == "&&" ? .and(a, b) : .or(a, b)
        case "==", "!=":
            let (a, b) = try unify(left, right, allowOptional: true, column: column, op: op)
            if a.type.unwrapped == .json || b.type.unwrapped == .json, a.type != .null, b.type != .null {
                throw error("JSON values can only be compared with nil", column)
            }
            return .compare(op, a, b)
        case "<", "<=", ">", ">=":
            let (a, b) = try unify(left, right, allowOptional: false, column: column, op: op)
            guard a.type.isComparable else { throw error("\(a.type) values cannot be ordered with '\(op)'", column) }
            return .compare(op, a, b)
        case "??":
            let a = try check(left)
            guard a.type.isOptional else { throw error("left side of ?? is not optional (\(a.type))", column) }
            let b = try check(right, context: a.type)
            if a.type != .null {
                guard b.type.unwrapped == a.type.unwrapped || b.type == .null else {
                    throw error("?? needs a default of type \(a.type.unwrapped), not \(b.type)", right.column)
                }
            }
            return .coalesce(a, b, b.type)
        default:  // + - * / %
            let (a, b) = try unify(left, right, allowOptional: false, column: column, op: op)
            let type = a.type
            switch type {
            case .int: break
            case .double where op != "%": break
            case .string where op == "+": break
            default: throw error("'\(op)' cannot be applied to \(type)", column)
            }
            return .arithmetic(op, a, b, type)
        }
    }
}
