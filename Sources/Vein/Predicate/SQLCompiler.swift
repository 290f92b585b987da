/// Compiles typed expressions to SQL for SQLite 3.15 with Swift's semantics.
///
/// Each condition compiles to SQL that is either *exact* (gives what the Swift evaluator gives on every
/// row) or *narrowing* (a superset of the rows the evaluator accepts, refined in memory afterwards), or
/// to nothing when SQL cannot help, so SQL and memory agree (ARCHITECTURE.md I17). The rules that keep
/// this honest:
/// - `==` / `!=` become `IS` / `IS NOT`, SQLite's null-safe comparisons: `nil == nil` is true and
///   `nil != 5` is true, as in Swift. Ordering operators only ever see non-optional operands (the type
///   checker refuses the rest, as Swift does), so SQL's three-valued logic never shows.
/// - Strings are compared with SQLite's binary collation, which is Swift's order and equality on strings
///   stored in NFC (the form Vein stores; literals are bound in the same form, and the string functions
///   return it).
/// - String `+` is SQL's `||` when its right side is a literal that is empty or starts with ASCII: then
///   the concatenation of two NFC strings is NFC. Otherwise (`"e" + "\u{301}"`) `vein_concat` normalizes it.
/// - `lowercased()`, `uppercased()`, String `count`, `localizedStandardContains` and Character-aware
///   `contains`, `hasPrefix`, `hasSuffix` run as Swift itself inside the scan (`SwiftStringFunctions`):
///   exact, and no object is made for a row they reject.
/// - Integer arithmetic that can trap in Swift (overflow, division by zero, `Int.min / -1`) runs through
///   the checked `vein_…` functions (`SQLFunctions`), which fail the statement with Swift's error; only `/`
///   and `%` by a literal other than 0 and -1 use SQLite's operators. Double `/` is SQLite's only with a
///   non-zero literal divisor; otherwise `vein_fdiv` (SQLite answers NULL where Swift gives an infinity).
///
/// Errors and evaluation order. Swift evaluates `a && b` and `a || b` left to right and stops early, so
/// which rows raise an error depends on the order. A fragment that can fail (`canFail`) keeps that order
/// with `CASE` (SQLite may reorder or index plain `AND`/`OR` terms). And every fragment keeps this
/// invariant: it is false on a row only where Swift's answer is false without an error, and it raises
/// an error only where Swift raises one. So a pre-filter never hides an error the in-memory evaluation
/// would meet, and never invents one: a conjunct after one that can fail is never used to drop rows
/// unless the one before it is exact in SQL.
///
/// Size. SQLite's parser has a small stack (about 30 nested function calls, 90 nested parentheses) and
/// at most 999 bound parameters: a fragment deeper than `maxNesting` or with more than `maxArguments`
/// parameters is not used (the condition is then evaluated in memory), and long `&&`/`||` chains arrive
/// here as balanced trees (`ExpressionParser`).
package struct SQLCompiler {
    package struct Fragment: Equatable, Sendable {
        package var sql: String
        package var arguments: [DatabaseValue]
        package var isExact: Bool
        /// Whether evaluating it can raise Swift's error (only exact integer arithmetic does).
        package var canFail = false
    }

    /// Weighted nesting (see `nesting(of:)`) a fragment may reach, leaving room for the statement around it.
    /// ExpressionSizeTests sweeps nested shapes inside a subquery: all prepare up to 100, some fail at 120.
    static let maxNesting = 80
    /// Bound parameters a fragment may use, leaving room for the statement's own (SQLite's limit is 999).
    static let maxArguments = 900
    /// Bytes of SQL a fragment may take (SQLite refuses statements over 1,000,000 bytes).
    static let maxLength = 500_000

    /// The table the expression's model lives in, as it appears in the query.
    let table: String
    /// The model and schema, for relationships kept outside the table (to-many, since store format 2); without
    /// them a to-many is left to the evaluator.
    let model: ModelSchema?
    let manifest: SchemaManifest?
    /// Writes integer literals into the SQL text instead of binding them (used when there are too many
    /// literals to bind).
    private var inlinesIntegers = false
    /// The member models of the closures being compiled, innermost last: scope n reads `scopeModels[n - 1]`,
    /// from a subquery whose table is aliased `"_m<n>"` (see `alias(_:)`).
    private var scopeModels: [ModelSchema] = []

    package init(table: String, model: ModelSchema? = nil, manifest: SchemaManifest? = nil) {
        self.table = table
        self.model = model
        self.manifest = manifest
    }

    /// How a to-many the expression reads on the row of its scope is stored (nil for anything else).
    private func toManyStorage(_ e: TypedExpression) -> RelationshipStorage? {
        guard case .column(let path, _) = e, path.hop == nil, let model = self.model(ofScope: path.scope), let manifest,
              let rel = model.relationship(named: path.column), rel.isToMany else { return nil }
        return RelationshipStorage(model: model, relationship: rel, in: manifest)
    }

    private func model(ofScope scope: Int) -> ModelSchema? {
        scope == 0 ? model : scopeModels.indices.contains(scope - 1) ? scopeModels[scope - 1] : nil
    }

    /// The table (or alias) holding the row of a scope: the query's own for 0, a closure's member row else.
    private func alias(_ scope: Int) -> String { scope == 0 ? table : SQL.quoteIdentifier("_m\(scope)") }

    /// The member rows of a to-many (`FROM … WHERE …`, filters applied, members aliased for the next
    /// scope), and the compiler for a closure over them. Nil unless every filter is exact in SQL.
    private func memberRows(_ list: TypedExpression) -> (rows: Fragment, closure: SQLCompiler)? {
        switch list {
        case .column(let path, _):
            guard let storage = toManyStorage(list), let target = manifest?.model(named: storage.target) else { return nil }
            var closure = self
            closure.scopeModels.append(target)
            let sql = storage.memberRowsSQL(owner: "\(alias(path.scope)).\(StoreFormat.key)", alias: "_m\(closure.scopeModels.count)")
            return (Fragment(sql: sql, arguments: [], isExact: true), closure)
        case .toManyFilter(let inner, let predicate):
            guard let (rows, closure) = memberRows(inner), let condition = closure.compileCondition(predicate), condition.isExact else { return nil }
            return (Fragment(sql: "\(rows.sql) AND (\(condition.sql))", arguments: rows.arguments + condition.arguments, isExact: true,
                             canFail: rows.canFail || condition.canFail), closure)
        default:
            return nil
        }
    }

    /// A WHERE condition for the predicate, or nil when SQL cannot narrow it at all.
    package func condition(_ e: TypedExpression) -> Fragment? {
        fitting { $0.compileCondition(e) }
    }

    /// SQL for a value, only when it is exactly the evaluator's value.
    package func value(_ e: TypedExpression) -> Fragment? {
        fitting { $0.compileValue(e) }
    }

    /// The fragment if SQLite can take it: with literals bound, else written inline, else nothing.
    private func fitting(_ compile: (SQLCompiler) -> Fragment?) -> Fragment? {
        guard var fragment = compile(self) else { return nil }
        if fragment.arguments.count > Self.maxArguments {
            var inlining = self
            inlining.inlinesIntegers = true
            guard let inlined = compile(inlining), inlined.arguments.count <= Self.maxArguments else { return nil }
            fragment = inlined
        }
        guard fragment.sql.utf8.count <= Self.maxLength else { return nil }
        return Self.nesting(of: fragment.sql) <= Self.maxNesting ? fragment : nil
    }

    /// An upper bound of the parser stack SQLite needs for `sql`, in units of about one stack entry:
    /// measured on SQLite 3.15, a function call's argument takes up to 6 entries, a `CASE` branch up to 6,
    /// an operand in parentheses up to 4; the parser has 100.
    static func nesting(of sql: String) -> Int {
        var depth = 0, deepest = 0, stack: [Int] = []
        var previous: Character = " ", inIdentifier = false, word = ""
        func push(_ cost: Int) { stack.append(cost); depth += cost; deepest = max(deepest, depth) }
        func pop() { if let cost = stack.popLast() { depth -= cost } }
        for c in sql {
            if inIdentifier { if c == "\"" { inIdentifier = false }; previous = c; continue }
            if c.isLetter || c == "_" { word.append(c) } else {
                if word == "CASE" { push(6) } else if word == "END" { pop() } else if word == "SELECT" { push(10); stack[stack.count - 1] = 0 }
                word = ""
            }
            switch c {
            case "\"": inIdentifier = true
            case "(": push(previous.isLetter || previous.isNumber || previous == "_" ? 6 : 4)
            case ")": pop()
            default: break
            }
            previous = c
        }
        if word == "END" { pop() }
        return deepest
    }

    private func compileCondition(_ e: TypedExpression) -> Fragment? {
        // Out of stack: no SQL, so the condition is evaluated in memory (which says so if it is out of room too).
        guard StackSpace.hasRoom(StackSpace.passReserve) else { return nil }
        switch e {
        case .and(let a, let b):
            let x = compileCondition(a), y = compileCondition(b)
            switch (x, y) {
            case (let x?, let y?) where x.isExact:
                return Self.inOrder(x, "AND", y, isExact: y.isExact)
            case (let x?, let y?) where !a.canFail && !y.canFail:
                // x only narrows: y may drop a row only because nothing before it can raise an error.
                return Fragment(sql: "(\(x.sql) AND \(y.sql))", arguments: x.arguments + y.arguments, isExact: false)
            case (let x?, _):
                return Fragment(sql: x.sql, arguments: x.arguments, isExact: false, canFail: x.canFail)
            case (nil, let y?) where !a.canFail && !y.canFail:
                return Fragment(sql: y.sql, arguments: y.arguments, isExact: false)
            default:
                return nil
            }
        case .or(let a, let b):
            // A row x keeps is kept; one x drops is false in Swift without an error, so Swift goes on to b.
            guard let x = compileCondition(a), let y = compileCondition(b) else { return nil }
            return Self.inOrder(x, "OR", y, isExact: x.isExact && y.isExact)
        case .not(let a):
            guard let x = compileCondition(a), x.isExact else { return nil }
            return Fragment(sql: "(NOT \(x.sql))", arguments: x.arguments, isExact: true, canFail: x.canFail)
        case .compare(let op, let a, let b):
            guard let x = compileValue(a), let y = compileValue(b) else { return nil }
            let arguments = x.arguments + y.arguments, canFail = x.canFail || y.canFail
            if a.mayBeNaN || b.mayBeNaN {
                // SQLite stores a NaN result as NULL. Swift's NaN is equal to nothing (nil and itself included)
                // and unordered: `=`, `<>` and the ordering operators give NULL for it, read as Swift's answer.
                let sqlOp = op == "==" ? "=" : op == "!=" ? "<>" : op
                return Fragment(sql: "COALESCE(\(x.sql) \(sqlOp) \(y.sql), \(op == "!=" ? 1 : 0))", arguments: arguments, isExact: true, canFail: canFail)
            }
            let sqlOp = op == "==" ? "IS" : op == "!=" ? "IS NOT" : op
            return Fragment(sql: "(\(x.sql) \(sqlOp) \(y.sql))", arguments: arguments, isExact: true, canFail: canFail)
        case .inList(let items, let needle):
            return inList(items, needle)
        case .toManyContains(let list, let needle):
            guard case .literal(.string(let id), _) = needle, case .column(let path, _) = list, let storage = toManyStorage(list) else { return nil }
            return Fragment(sql: storage.containsSQL(owner: "\(alias(path.scope)).\(StoreFormat.key)"), arguments: [.text(id)], isExact: true)
        case .toManyQuantifier(let quantifier, let list, let predicate):
            // Swift stops at the first member that decides, in the relationship's order, which SQL does not
            // keep: a closure that can fail is left to memory.
            guard let (rows, closure) = memberRows(list), !rows.canFail, let p = closure.compileCondition(predicate), !p.canFail else { return nil }
            if quantifier == .any {
                return Fragment(sql: "EXISTS (SELECT 1 \(rows.sql) AND (\(p.sql)))", arguments: rows.arguments + p.arguments, isExact: p.isExact)
            }
            // No member for which the body is not true (a NULL, which WHERE takes as false, counts as false).
            guard p.isExact else { return nil }
            return Fragment(sql: "NOT EXISTS (SELECT 1 \(rows.sql) AND NOT COALESCE(\(p.sql), 0))", arguments: rows.arguments + p.arguments, isExact: true)
        case .rangeContains(let lower, let upper, let closed, let needle):
            return rangeContains(lower, upper, closed: closed, needle)
        case .stringMethod(let name, let base, let argument, _):
            return stringMethod(name, base, argument)
        case .literal(.bool(let v), _):
            return Fragment(sql: v ? "1" : "0", arguments: [], isExact: true)
        case .column, .coalesce, .forceUnwrap, .conditional:
            guard e.type == .bool, let v = compileValue(e) else { return nil }
            return Fragment(sql: "(\(v.sql) IS 1)", arguments: v.arguments, isExact: true, canFail: v.canFail)
        default:
            return nil
        }
    }

    /// A String method, with Swift's semantics: `isEmpty` as `= ''`, the rest through `SwiftStringFunctions`.
    /// NULL where the base is nil (an optional chain), as the evaluator's nil.
    private func stringMethod(_ name: String, _ base: TypedExpression, _ argument: TypedExpression?) -> Fragment? {
        guard let b = compileValue(base) else { return nil }
        if name == "isEmpty" { return Fragment(sql: "(\(b.sql) = '')", arguments: b.arguments, isExact: true, canFail: b.canFail) }
        guard let function = SwiftStringFunctions.methodNames[name] else { return nil }
        guard let argument else { return Fragment(sql: "\(function)(\(b.sql))", arguments: b.arguments, isExact: true, canFail: b.canFail) }
        // Swift evaluates the base before the argument; SQLite evaluates a function's arguments in order too.
        guard let a = compileValue(argument) else { return nil }
        return Fragment(sql: "\(function)(\(b.sql), \(a.sql))", arguments: b.arguments + a.arguments, isExact: true, canFail: b.canFail || a.canFail)
    }

    /// `x AND y` / `x OR y` evaluated as Swift does, left to right, stopping early: plain when neither
    /// can raise an error (SQLite may then reorder the terms and use indexes), else in a `CASE`.
    private static func inOrder(_ x: Fragment, _ op: String, _ y: Fragment, isExact: Bool) -> Fragment {
        let canFail = x.canFail || y.canFail
        let sql = !canFail ? "(\(x.sql) \(op) \(y.sql))"
            : op == "AND" ? "(CASE WHEN \(x.sql) THEN \(y.sql) ELSE 0 END)" : "(CASE WHEN \(x.sql) THEN 1 ELSE \(y.sql) END)"
        return Fragment(sql: sql, arguments: x.arguments + y.arguments, isExact: isExact, canFail: canFail)
    }

    /// `[a, b].contains(x)`. Swift evaluates every element, then `x`, where SQL promises no order: when an
    /// element can fail, `vein_evaluated(a, b, x)` evaluates them all first, in Swift's order (SQLite
    /// evaluates a function's arguments left to right), so the first error met is Swift's; the comparisons
    /// after it meet none.
    private func inList(_ items: [TypedExpression], _ needle: TypedExpression) -> Fragment? {
        guard let comparisons = inListComparisons(items, needle) else { return nil }
        guard items.contains(where: \.canFail) else { return comparisons }
        guard items.count < SQLFunctions.maxEvaluatedArguments else { return nil }
        var operands: [Fragment] = []
        for operand in items + [needle] {
            guard let v = compileValue(operand) else { return nil }
            operands.append(v)
        }
        let sql = "(CASE WHEN \(SQLFunctions.evaluatedName)(\(operands.map(\.sql).joined(separator: ", "))) THEN \(comparisons.sql) ELSE 0 END)"
        return Fragment(sql: sql, arguments: operands.flatMap(\.arguments) + comparisons.arguments, isExact: true, canFail: true)
    }

    /// `[a, b].contains(x)` as comparisons, in no particular order. Literal elements become one `IN (…)`.
    private func inListComparisons(_ items: [TypedExpression], _ needle: TypedExpression) -> Fragment? {
        guard let n = compileValue(needle) else { return nil }
        guard !items.isEmpty else { return Fragment(sql: "0", arguments: [], isExact: true, canFail: n.canFail) }
        let values = items.compactMap { item -> Value? in if case .literal(let v, _) = item { return v } else { return nil } }
        if values.count == items.count {
            let literals = values.filter { $0 != .null }.map(literal)
            var sql = "0", arguments: [DatabaseValue] = []
            if !literals.isEmpty {
                // IN is NULL, not false, for a nil needle.
                let guardNil = needle.type.isOptional ? "\(n.sql) IS NOT NULL AND " : ""
                sql = "(\(guardNil)\(n.sql) IN (\(literals.map(\.sql).joined(separator: ", "))))"
                arguments = (needle.type.isOptional ? n.arguments : []) + n.arguments + literals.flatMap(\.arguments)
            }
            if values.contains(.null) {
                sql = "(\(n.sql) IS NULL OR \(sql))"
                arguments = n.arguments + arguments
            }
            return Fragment(sql: sql, arguments: arguments, isExact: true, canFail: n.canFail)
        }
        // Balanced, so a long list stays shallow.
        var parts: [Fragment] = []
        for item in items {
            guard let v = compileValue(item) else { return nil }
            parts.append(Fragment(sql: "(\(n.sql) IS \(v.sql))", arguments: n.arguments + v.arguments, isExact: true, canFail: n.canFail))
        }
        func join(_ range: Range<Int>) -> Fragment {
            if range.count == 1 { return parts[range.lowerBound] }
            let middle = range.lowerBound + range.count / 2
            return Self.inOrder(join(range.lowerBound..<middle), "OR", join(middle..<range.upperBound), isExact: true)
        }
        return join(0..<parts.count)
    }

    /// `(lower...upper).contains(x)` as `BETWEEN`, `(lower..<upper).contains(x)` as `>= AND <`. Bounds that
    /// are not literals known to form a range are checked first with `vein_range`, which traps as Swift does.
    private func rangeContains(_ lower: TypedExpression, _ upper: TypedExpression, closed: Bool, _ needle: TypedExpression) -> Fragment? {
        guard let lo = compileValue(lower), let hi = compileValue(upper), let x = compileValue(needle) else { return nil }
        var sql = closed ? "(\(x.sql) BETWEEN \(lo.sql) AND \(hi.sql))" : "(\(x.sql) >= \(lo.sql) AND \(x.sql) < \(hi.sql))"
        var arguments = closed ? x.arguments + lo.arguments + hi.arguments : x.arguments + lo.arguments + x.arguments + hi.arguments
        // A NaN value (NULL in SQLite) is in no range: false, as Swift answers.
        if needle.mayBeNaN { sql = "COALESCE(\(sql), 0)" }
        var canFail = x.canFail
        if !TypedExpression.isValidLiteralRange(lower, upper) {
            sql = "(CASE WHEN \(SQLFunctions.rangeName)(\(lo.sql), \(hi.sql)) THEN \(sql) ELSE 0 END)"
            arguments = lo.arguments + hi.arguments + arguments
            canFail = true
        }
        return Fragment(sql: sql, arguments: arguments, isExact: true, canFail: canFail)
    }

    /// A literal: bound, or written inline (integers, when there are too many to bind).
    private func literal(_ v: Value) -> Fragment {
        switch v {
        case .null: return Fragment(sql: "NULL", arguments: [], isExact: true)
        case .bool(let b): return Fragment(sql: b ? "1" : "0", arguments: [], isExact: true)
        case .int(let i) where inlinesIntegers:
            // Int64.min has no literal in SQL (its magnitude is not an integer); never `--`, a comment.
            return Fragment(sql: i == .min ? "(-9223372036854775807 - 1)" : i < 0 ? "(\(i))" : "\(i)", arguments: [], isExact: true)
        default: return Fragment(sql: "?", arguments: [v.databaseValue], isExact: true)
        }
    }

    /// Whether integer `a op b` can trap in Swift for some value of `a`: all but `/` and `%` by a literal
    /// other than 0 and -1 can (overflow, division by zero, `Int.min / -1`).
    static func canTrap(_ op: String, divisor b: TypedExpression) -> Bool {
        guard op == "/" || op == "%", case .literal(.int(let d), _) = b else { return true }
        return d == 0 || d == -1
    }

    private func compileValue(_ e: TypedExpression) -> Fragment? {
        guard StackSpace.hasRoom(StackSpace.passReserve) else { return nil }
        switch e {
        case .literal(.string(let text), .string):
            // An enum's literal is the manifest's own spelling, stored as it is: only String literals are NFC'd.
            return Fragment(sql: "?", arguments: [.text(NormalForm.text(text))], isExact: true)
        case .literal(let v, _):
            return literal(v)
        case .column(let path, _):
            // A to-many has no column (since store format 2): only `count`, `isEmpty` and `contains` compile.
            if case .toMany = path.storedType { return nil }
            let column = SQL.quoteIdentifier(path.column), row = alias(path.scope)
            guard let hop = path.hop else { return Fragment(sql: "\(row).\(column)", arguments: [], isExact: true) }
            // Aliased: the target may be the same table (a self-relationship), which would shadow the outer row.
            return Fragment(sql: "(SELECT \"_hop\".\(column) FROM \(SQL.quoteIdentifier(hop.target)) AS \"_hop\" WHERE \"_hop\".\(StoreFormat.key) = \(row).\(SQL.quoteIdentifier(hop.name)))",
                            arguments: [], isExact: true)
        case .negate(let a, let type):
            guard let x = compileValue(a) else { return nil }
            if type == .int { return Fragment(sql: "\(SQLFunctions.negateName)(\(x.sql))", arguments: x.arguments, isExact: true, canFail: true) }
            return Fragment(sql: "(-\(x.sql))", arguments: x.arguments, isExact: true, canFail: x.canFail)
        case .arithmetic(let op, let a, let b, let type):
            guard let x = compileValue(a), let y = compileValue(b) else { return nil }
            let arguments = x.arguments + y.arguments, canFail = x.canFail || y.canFail
            let function: String?
            switch type {
            case .int where Self.canTrap(op, divisor: b): function = SQLFunctions.binaryNames[op]!
            case .double where op == "/":
                guard case .literal(.double(let divisor), _) = b, divisor != 0 else { function = SQLFunctions.divideDoublesName; break }
                function = nil
            case .string:
                guard case .literal(.string(let suffix), _) = b, NormalForm.text(suffix).unicodeScalars.first?.isASCII ?? true else {
                    function = SwiftStringFunctions.concatenateName
                    break
                }
                function = nil
            default: function = nil
            }
            if let function {
                return Fragment(sql: "\(function)(\(x.sql), \(y.sql))", arguments: arguments, isExact: true, canFail: canFail || type == .int)
            }
            let sqlOp = type == .string ? "||" : op
            return Fragment(sql: "(\(x.sql) \(sqlOp) \(y.sql))", arguments: arguments, isExact: true, canFail: canFail)
        case .conditional(let c, let a, let b, _):
            // CASE evaluates only the branch taken, as Swift does; WHEN takes a row as WHERE would.
            guard let w = compileCondition(c), w.isExact, let x = compileValue(a), let y = compileValue(b) else { return nil }
            return Fragment(sql: "(CASE WHEN \(w.sql) THEN \(x.sql) ELSE \(y.sql) END)", arguments: w.arguments + x.arguments + y.arguments,
                            isExact: true, canFail: w.canFail || x.canFail || y.canFail)
        case .forceUnwrap(let a, _):
            guard let x = compileValue(a) else { return nil }
            return Fragment(sql: "\(SQLFunctions.unwrapName)(\(x.sql))", arguments: x.arguments, isExact: true, canFail: true)
        case .coalesce(let a, let b, _):
            // COALESCE evaluates its second argument only when the first is NULL, as `??` does.
            guard let x = compileValue(a), let y = compileValue(b) else { return nil }
            return Fragment(sql: "COALESCE(\(x.sql), \(y.sql))", arguments: x.arguments + y.arguments, isExact: true,
                            canFail: x.canFail || y.canFail)
        case .stringMethod(let name, let base, _, let type) where type.unwrapped != .bool:
            return stringMethod(name, base, nil)
        case .toManyCount(.toManyFilter(let list, let predicate)):
            // Swift's filter evaluates the closure on every member, as the count's WHERE does.
            guard let (rows, _) = memberRows(.toManyFilter(list, predicate)) else { return nil }
            return Fragment(sql: "(SELECT count(*) \(rows.sql))", arguments: rows.arguments, isExact: true, canFail: rows.canFail)
        case .toManyCount(let a):
            guard case .column(let path, _) = a, let storage = toManyStorage(a) else { return nil }
            return Fragment(sql: storage.countSQL(owner: "\(alias(path.scope)).\(StoreFormat.key)"), arguments: [], isExact: true)
        default:
            // A Bool-valued expression used as a value (`(a == b) == true`), or a Bool? one from an optional
            // chain (`legacyCode?.isEmpty`, NULL when the chain meets nil).
            guard e.type.unwrapped == .bool, let c = compileCondition(e), c.isExact else { return nil }
            return c
        }
    }
}

extension TypedExpression {
    /// Whether `lower...upper` are literals that form a range (`lower <= upper`), so it cannot trap.
    static func isValidLiteralRange(_ lower: TypedExpression, _ upper: TypedExpression) -> Bool {
        guard case .literal(let a, _) = lower, case .literal(let b, _) = upper else { return false }
        return Evaluator.compare("<=", a, b)
    }

    /// Whether its value can be a Double NaN (infinity minus infinity, zero times infinity), which SQLite
    /// cannot hold; only Double arithmetic makes one.
    var mayBeNaN: Bool {
        switch self {
        case .arithmetic(_, _, _, .double): return true
        case .negate(let a, _): return a.mayBeNaN
        case .coalesce(let a, let b, _): return a.mayBeNaN || b.mayBeNaN
        case .forceUnwrap(let a, _): return a.mayBeNaN
        case .conditional(_, let a, let b, _): return a.mayBeNaN || b.mayBeNaN
        default: return false
        }
    }

    /// Whether evaluating it can raise an error on some row, as Swift traps: integer arithmetic that can
    /// overflow or divide by zero (see `SQLCompiler.canTrap`).
    var canFail: Bool {
        switch self {
        case .literal, .column: return false
        case .negate(let a, let type): return type == .int || a.canFail
        case .arithmetic(let op, let a, let b, let type):
            return (type == .int && SQLCompiler.canTrap(op, divisor: b)) || a.canFail || b.canFail
        case .forceUnwrap: return true
        case .conditional(let c, let a, let b, _): return c.canFail || a.canFail || b.canFail
        case .not(let a), .toManyCount(let a): return a.canFail
        case .toManyQuantifier(_, let a, let b), .toManyFilter(let a, let b): return a.canFail || b.canFail
        case .rangeContains(let lower, let upper, _, let needle):
            return !TypedExpression.isValidLiteralRange(lower, upper) || lower.canFail || upper.canFail || needle.canFail
        case .compare(_, let a, let b), .and(let a, let b), .or(let a, let b), .coalesce(let a, let b, _), .toManyContains(let a, let b):
            return a.canFail || b.canFail
        case .stringMethod(_, let base, let argument, _): return base.canFail || (argument?.canFail ?? false)
        case .inList(let items, let needle): return needle.canFail || items.contains { $0.canFail }
        }
    }
}
