import Foundation

/// Resolves names against a model and checks types with Swift's rules, before anything runs: what Swift
/// would refuse to compile in a `#Predicate`, Vein refuses here, with a caret under the place.
public struct TypeChecker {
    public let manifest: SchemaManifest
    public let model: ModelSchema
    let source: String
    /// Set while checking integer-literal arithmetic in a Double context (`check(_:context:)`).
    private var integerLiteralsAreDouble = false
    /// The closures being checked, innermost last: each parameter's name and model. The parameter of the
    /// n-th is read at scope n (`TypedExpression.ColumnPath.scope`); the object tested is scope 0.
    private var closureScopes: [(parameter: String, model: ModelSchema)] = []

    public init(manifest: SchemaManifest, model: ModelSchema, source: String) {
        self.manifest = manifest
        self.model = model
        self.source = source
    }

    /// Parses and checks a condition: it must be a Bool.
    public static func checkPredicate(_ source: String, model: ModelSchema, manifest: SchemaManifest) throws(ExpressionError) -> TypedExpression {
        let expression = try ExpressionParser.parse(source)
        let checker = TypeChecker(manifest: manifest, model: model, source: source)
        return try checker.checkCondition(expression)
    }

    /// "… must be a Bool, not T", and for a `Bool?` (an optional chain, a hop) what Swift wants instead.
    func notBool(_ what: String, _ type: ValueType, _ column: Int) -> ExpressionError {
        let hint = type == .optional(.bool) ? "; write (…) == true to take nil as false, as Swift requires" : ""
        return error("\(what), not \(type)\(hint)", column)
    }

    func error(_ message: String, _ column: Int) -> ExpressionError {
        ExpressionError(message, column: column, source: source)
    }

    public func check(_ expression: ParsedExpression) throws(ExpressionError) -> TypedExpression {
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
        case .closure(_, _, let column):
            throw error("a closure can only be the argument of contains(where:), allSatisfy or filter on a to-many relationship", column)
        case .parameter(let name, let column):
            throw error("\(name) is an object: compare one of its fields (\(name).name)", column)
        case .conditional(let condition, let then, let otherwise, let column):
            return try conditional(condition, then, otherwise, column)
        case .forceUnwrap(let operand, let column):
            let typed = try check(operand)
            guard typed.type != .null else { throw error("'nil' cannot be force unwrapped", column) }
            guard typed.type.isOptional else {
                throw error("cannot force unwrap value of non-optional type \(typed.type)", column)
            }
            // A literal that is not nil (`UUID(uuidString: "…")!`) cannot trap: its value, which SQL can
            // compare through an index and without the unwrap's check.
            if case .literal(let value, let type) = typed, value != .null { return .literal(value, type.unwrapped) }
            return .forceUnwrap(typed, typed.type.unwrapped)
        case .call(let base, let name, let arguments, let column): return try call(base, name, arguments, column)
        case .unary(let op, let operand, let column):
            let typed = try check(operand)
            if op == "!" {
                guard typed.type == .bool else { throw notBool("'!' needs a Bool", typed.type, column) }
                return .not(typed)
            }
            if typed.type == .optional(.int) || typed.type == .optional(.double) {
                throw mustBeUnwrapped(typed.type, expected: typed.type.unwrapped, at: operand.startColumn)
            }
            guard typed.type == .int || typed.type == .double else { throw error("'-' needs a number, not \(typed.type)", column) }
            return .negate(typed, typed.type)
        case .binary(let op, let left, let right, let column): return try binary(op, left, right, column)
        }
    }

    /// Checks `expression` where Swift knows the type it must have. Swift types an integer literal by its
    /// context, and so an expression made only of integer literals: where a Double is wanted, `1 / 2` is
    /// `0.5` (Double division), not `0`. Any other expression keeps its own type (`views / 2` stays Int).
    public func check(_ expression: ParsedExpression, context: ValueType) throws(ExpressionError) -> TypedExpression {
        guard context.unwrapped == .double, Self.isIntegerLiteralArithmetic(expression) else { return try check(expression) }
        var inDoubleContext = self
        inDoubleContext.integerLiteralsAreDouble = true
        return try inDoubleContext.check(expression)
    }

    /// Integer literals joined by `+ - * /` and prefix `-` (`%` is not defined on Double, so an expression
    /// with it stays Int, as Swift would have it). A loop, not recursion: it runs at any nesting depth.
    static func isIntegerLiteralArithmetic(_ expression: ParsedExpression) -> Bool {
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

    static func typed(_ literal: ParsedExpression.Literal) -> TypedExpression {
        switch literal {
        case .int(let v): return .literal(.int(v), .int)
        case .double(let v): return .literal(.double(v), .double)
        // In the form stored text takes, so SQL's byte comparisons meet Swift's canonical equivalence.
        case .string(let s): return .literal(.string(NormalForm.text(s)), .string)
        case .bool(let b): return .literal(.bool(b), .bool)
        case .null: return .literal(.null, .null)
        case .date(let d): return .literal(.date(d), .date)
        case .id(let s): return .literal(.string(s), .id)
        // Its stored form (uppercase text): equal UUIDs are equal text, as Foundation's == compares the bytes.
        case .uuid(let u): return .literal(.string(u.uuidString), .uuid)
        case .uuidString(let u): return .literal(.string(u.uuidString), .optional(.uuid))
        }
    }

    // MARK: Names

    private func resolve(_ name: String, in model: ModelSchema, column: Int, hop: RelationshipSchema?, scope: Int) throws(ExpressionError) -> TypedExpression {
        if model.namesRowKey(name) {
            let path = TypedExpression.ColumnPath(hop: hop, column: StoreFormat.current.keyColumn, storedType: .id, scope: scope)
            return .column(path, hop == nil ? .id : .optional(.id))
        }
        if let field = model.field(named: name) {
            let type = ValueType.of(field)
            return .column(TypedExpression.ColumnPath(hop: hop, column: name, storedType: type, scope: scope), hop == nil ? type : type.optionalized)
        }
        if let rel = model.relationship(named: name) {
            if rel.isToMany {
                guard hop == nil else { throw error("only one relationship hop is allowed", column) }
                return .column(TypedExpression.ColumnPath(hop: nil, column: name, storedType: .toMany(rel.target), scope: scope), .toMany(rel.target))
            }
            return .column(TypedExpression.ColumnPath(hop: hop, column: name, storedType: .optional(.id), scope: scope), .optional(.id))
        }
        var hint = Suggestion.hint(for: name, in: [StoreFormat.current.keyColumn] + model.columnNames, quote: "'")
        // A bare name in a closure is the outer object's, as `title` is; the member's needs its parameter.
        if scope == 0, hop == nil, let inner = closureScopes.last, inner.model.field(named: name) != nil || inner.model.relationship(named: name) != nil {
            hint = " (inside the closure, write \(inner.parameter).\(name))"
        }
        throw error("no field '\(name)' in \(model.name)" + hint, column)
    }

    /// The object a name is looked up in: the one tested for a bare name, a closure's parameter for
    /// `$0.name` or `a.name` inside the closure; nil when `base` is a value.
    private func object(_ base: ParsedExpression?) throws(ExpressionError) -> (model: ModelSchema, scope: Int)? {
        guard let base else { return (model, 0) }
        guard case .parameter(let name, let column) = base else { return nil }
        guard let index = closureScopes.lastIndex(where: { $0.parameter == name }) else {
            throw error("\(name) is not a closure parameter here", column)
        }
        return (closureScopes[index].model, index + 1)
    }

    private func member(_ base: ParsedExpression?, _ name: String, _ column: Int) throws(ExpressionError) -> TypedExpression {
        if let (owner, scope) = try object(base) { return try resolve(name, in: owner, column: column, hop: nil, scope: scope) }
        guard let base else { return try resolve(name, in: model, column: column, hop: nil, scope: 0) }
        // One hop through a to-one relationship, which is optional as in Swift: `post?.title`, whose type
        // is optional (flattened: `post?.rating` is `Int?` whether `rating` is `Int` or `Int?`).
        if case .optionalChain(.member(let ownerBase, let relName, _), _) = base, let (owner, scope) = try object(ownerBase),
           let rel = owner.relationship(named: relName), !rel.isToMany, let target = manifest.model(named: rel.target) {
            return try resolve(name, in: target, column: column, hop: rel, scope: scope)
        }
        if case .member(let ownerBase, let relName, let relColumn) = base, let (owner, _) = try object(ownerBase),
           let rel = owner.relationship(named: relName), !rel.isToMany {
            throw error("\(relName) is optional: write \(relName)?.\(name)", relColumn)
        }
        let (typed, chained) = try chainBase(base)
        // In an optional chain (`legacyCode?.count`, `post?.title.count`) the member is the wrapped
        // value's, and the result is optional: nil when the chain meets nil, as in Swift.
        let resultType = { (type: ValueType) in chained ? type.optionalized : type }
        switch (chained ? typed.type.unwrapped : typed.type, name) {
        case (.toMany, "count"): return .toManyCount(typed)
        case (.toMany, "isEmpty"): return .compare("==", .toManyCount(typed), .literal(.int(0), .int))
        case (.string, "count"): return .stringMethod("count", typed, nil, resultType(.int))
        case (.string, "isEmpty"): return .stringMethod("isEmpty", typed, nil, resultType(.bool))
        case (.optional(let inner), _):
            throw error("value of optional type \(inner)? must be unwrapped to use '\(name)' (use ?? to give a default, or ?. to chain)", column)
        case (let type, _):
            throw error("\(type) has no member '\(name)'", column)
        }
    }

    /// The value a member or method applies to, and whether it is in an optional chain: `x?.…` itself, or
    /// a chain continuing after one (`post?.title.count`: the chain started at `post?`).
    private func chainBase(_ base: ParsedExpression) throws(ExpressionError) -> (TypedExpression, chained: Bool) {
        if case .optionalChain(let inner, let column) = base {
            let typed = try check(inner)
            guard typed.type.isOptional, typed.type != .null else {
                throw error("cannot use optional chaining on non-optional value of type \(typed.type)", column)
            }
            return (typed, true)
        }
        return (try check(base), Self.continuesChain(base))
    }

    private static func continuesChain(_ e: ParsedExpression) -> Bool {
        var next = e
        while true {
            switch next {
            case .optionalChain: return true
            case .member(let base?, _, _), .call(let base, _, _, _): next = base
            default: return false
            }
        }
    }

    /// `x?` not followed by a member: Swift's error on a non-optional, else what it must be followed by.
    private func unsupportedChain(_ base: ParsedExpression, _ column: Int) throws(ExpressionError) -> ExpressionError {
        let typed = try check(base)
        guard typed.type.isOptional else {
            return error("cannot use optional chaining on non-optional value of type \(typed.type)", column)
        }
        return error("'?' must be followed by a member, as in x?.count; use ?? to give a default", column)
    }

    private static let stringPredicates: Set<String> = ["contains", "hasPrefix", "hasSuffix", "starts", "localizedStandardContains"]

    private func call(_ base: ParsedExpression, _ name: String, _ arguments: [ParsedExpression.Argument], _ column: Int) throws(ExpressionError) -> TypedExpression {
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
        if case .binary(let op, let lower, let upper, let rangeColumn) = base, op == "..." || op == "..<" {
            return try rangeContains(lower, upper, closed: op == "...", rangeColumn, name, arguments, column)
        }
        let (typedBase, chained) = try chainBase(base)
        let baseType = chained ? typedBase.type.unwrapped : typedBase.type
        let resultType = { (type: ValueType) in chained ? type.optionalized : type }
        if case .toMany(let target) = baseType {
            return try toManyCall(typedBase, target, name, arguments, column)
        }
        if case .optional(let inner) = baseType {
            throw error("value of optional type \(inner)? must be unwrapped to call '\(name)' (use ?? to give a default, or ?. to chain)", column)
        }
        guard baseType == .string else { throw error("\(baseType) has no method '\(name)'", column) }
        if name == "lowercased" || name == "uppercased" {
            guard arguments.isEmpty else { throw error("\(name)() takes no arguments", column) }
            return .stringMethod(name, typedBase, nil, resultType(.string))
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
            if argument.type == .optional(.string) {
                throw mustBeUnwrapped(argument.type, expected: .string, at: arguments[0].value.startColumn)
            }
            throw error("\(name) needs a String argument, not \(argument.type)", arguments[0].value.column)
        }
        return .stringMethod(name == "starts" ? "hasPrefix" : name, typedBase, argument, resultType(.bool))
    }

    // MARK: To-many relationships

    /// `contains(#id(…))`, and the closures Swift's sequences take: `contains(where:)` (or a trailing
    /// `contains { … }`), `allSatisfy { … }`, `filter { … }` (a to-many again, for `.count`, `.isEmpty`, …).
    private func toManyCall(_ list: TypedExpression, _ target: String, _ name: String, _ arguments: [ParsedExpression.Argument], _ column: Int) throws(ExpressionError) -> TypedExpression {
        let closure: (parameter: String, body: ParsedExpression)?
        if arguments.count == 1, case .closure(let parameter, let body, _) = arguments[0].value { closure = (parameter, body) } else { closure = nil }
        switch (name, closure, arguments.first?.label) {
        case ("contains", nil, nil) where arguments.count == 1:
            let needle = try check(arguments[0].value)
            guard needle.type.unwrapped == .id else { throw error("contains on a relationship takes an id: #id(\"…\")", arguments[0].value.column) }
            return .toManyContains(list, needle)
        case ("contains", let closure?, "where"):
            return .toManyQuantifier(.any, list, try closureBody(closure, target))
        case ("contains", let closure?, nil) where arguments[0].isTrailingClosure:
            return .toManyQuantifier(.any, list, try closureBody(closure, target))
        case ("allSatisfy", let closure?, nil):
            return .toManyQuantifier(.all, list, try closureBody(closure, target))
        case ("filter", let closure?, nil):
            return .toManyFilter(list, try closureBody(closure, target))
        case ("contains", _?, _):
            throw error("use contains(where: { … }) or a trailing closure: contains { … }", column)
        case ("contains", nil, "where"), ("allSatisfy", nil, _), ("filter", nil, _):
            let call = name == "contains" ? "contains(where: { $0.… })" : "\(name) { $0.… }"
            throw error("\(name) on a relationship takes a closure over its members: \(call)", column)
        default:
            throw error("[\(target)] has no method '\(name)'" + Suggestion.hint(for: name, in: ["contains", "allSatisfy", "filter", "count", "isEmpty"], quote: "'"), column)
        }
    }

    /// A closure's body, checked as a Bool over the member model with the parameter in scope.
    private func closureBody(_ closure: (parameter: String, body: ParsedExpression), _ target: String) throws(ExpressionError) -> TypedExpression {
        guard let targetModel = manifest.model(named: target) else { throw error("no model '\(target)'", closure.body.column) }
        var inner = self
        inner.closureScopes.append((closure.parameter, targetModel))
        let typed = try inner.check(closure.body)
        guard typed.type == .bool else { throw notBool("a closure's body must be a Bool", typed.type, closure.body.column) }
        return typed
    }

    // MARK: Ranges

    /// `(lower...upper).contains(x)`, `(lower..<upper).contains(x)`: one Comparable type for the bounds and
    /// the value, as Swift infers it (integer literals become Double next to a Double).
    private func rangeContains(_ lower: ParsedExpression, _ upper: ParsedExpression, closed: Bool, _ rangeColumn: Int, _ name: String,
                               _ arguments: [ParsedExpression.Argument], _ column: Int) throws(ExpressionError) -> TypedExpression {
        guard name == "contains" else { throw error("a range has no method '\(name)' here; use (a...b).contains(x)", column) }
        guard arguments.count == 1, arguments[0].label == nil else { throw error("contains on a range takes one value: (a...b).contains(x)", column) }
        let needleExpression = arguments[0].value
        var needle = try check(needleExpression)
        var low = try check(lower, context: needle.type), high = try check(upper, context: needle.type)
        if [low.type, high.type].contains(.double) {
            low = try check(lower, context: .double)
            high = try check(upper, context: .double)
            needle = try check(needleExpression, context: .double)
        }
        for (bound, expression) in [(low, lower), (high, upper)] where bound.type.isOptional {
            throw error("the bounds of a range cannot be optional (\(bound.type)), as in Swift; unwrap with ?? first", expression.column)
        }
        guard low.type == high.type else { throw error("the bounds of a range must have one type, not \(low.type) and \(high.type)", rangeColumn) }
        guard low.type.isComparable, low.type != .id else {
            throw error("\(low.type) values cannot form a range (Swift needs Comparable bounds: Int, Double, String, Date)", rangeColumn)
        }
        guard needle.type == low.type else {
            let hint = needle.type.unwrapped == low.type ? "; unwrap with ?? first" : ""
            throw error("a range of \(low.type) cannot contain a value of type \(needle.type)\(hint)", needleExpression.column)
        }
        return .rangeContains(low, high, closed: closed, needle)
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
    private func unify(_ left: ParsedExpression, _ right: ParsedExpression, allowOptional: Bool, column: Int, op: String) throws(ExpressionError) -> (TypedExpression, TypedExpression) {
        func adapt(_ e: ParsedExpression, to other: TypedExpression) throws(ExpressionError) -> TypedExpression {
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
            if (ta.unwrapped == .uuid && tb.unwrapped == .string) || (ta.unwrapped == .string && tb.unwrapped == .uuid) {
                // Swift does not compare a UUID with a String (a `#Predicate` saying so does not compile).
                throw error("cannot compare \(ta) with \(tb), as in Swift: compare with a UUID value: UUID(uuidString: \"…\")", column)
            }
            throw error("cannot compare \(ta) with \(tb)", column)
        }
        if !allowOptional && ta.isOptional { throw mustBeUnwrapped(ta, expected: tb.unwrapped, at: left.startColumn) }
        if !allowOptional && tb.isOptional { throw mustBeUnwrapped(tb, expected: ta.unwrapped, at: right.startColumn) }
        return (a, b)
    }

    /// An optional value where Swift takes none (an operand of `<` or `/`, `-x`, a String argument): Swift's
    /// own error, pointing at the value rather than the operator. `expected`: the type wanted there.
    private func mustBeUnwrapped(_ type: ValueType, expected: ValueType, at column: Int) -> ExpressionError {
        guard type != .null else { return error("'nil' is not compatible with expected argument type \(expected)", column) }
        return error("value of optional type \(type) must be unwrapped to a value of type \(type.unwrapped) "
                     + "(use ?? to give a default, or ! to force unwrap)", column)
    }

    /// `c ? a : b`: a Bool condition, and branches of one type as Swift infers it (a literal takes the
    /// other branch's type, `nil` makes it optional).
    private func conditional(_ condition: ParsedExpression, _ then: ParsedExpression, _ otherwise: ParsedExpression, _ column: Int) throws(ExpressionError) -> TypedExpression {
        let c = try check(condition)
        guard c.type == .bool else { throw notBool("the condition of '? :' must be a Bool", c.type, condition.column) }
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

    private func binary(_ op: String, _ left: ParsedExpression, _ right: ParsedExpression, _ column: Int) throws(ExpressionError) -> TypedExpression {
        switch op {
        case "...", "..<":
            throw error("a range can only be used with .contains(…), as in (1...5).contains(views)", column)
        case "&&", "||":
            let a = try check(left), b = try check(right)
            guard a.type == .bool else { throw notBool("'\(op)' needs Bool operands", a.type, left.column) }
            guard b.type == .bool else { throw notBool("'\(op)' needs Bool operands", b.type, right.column) }
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

extension TypeChecker {
    /// Checks a parsed condition: it must be a Bool.
    package func checkCondition(_ expression: ParsedExpression) throws(ExpressionError) -> TypedExpression {
        let typed = try check(expression)
        guard typed.type == .bool else { throw notBool("a condition must be a Bool", typed.type, expression.column) }
        return typed
    }
}
