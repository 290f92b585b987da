/// Compiles typed expressions to SQL for SQLite 3.15 with Swift's semantics.
///
/// Each condition compiles to SQL that is either *exact* (gives what the Swift evaluator gives on every
/// row) or *narrowing* (a superset of the rows the evaluator accepts, refined in memory afterwards), or
/// to nothing when SQL cannot help. The rules that keep this honest:
/// - `==` / `!=` become `IS` / `IS NOT`, SQLite's null-safe comparisons: `nil == nil` is true and
///   `nil != 5` is true, as in Swift. Ordering operators only ever see non-optional operands (the type
///   checker refuses the rest, as Swift does), so SQL's three-valued logic never shows.
/// - Strings are compared with SQLite's binary collation, which is Swift's order and equality on strings
///   stored in NFC (the form Vein stores; literals are bound in the same form). `contains`, `hasPrefix`,
///   `hasSuffix` match bytes, not Swift's Characters, so they only narrow: NFC never composes across a
///   Character boundary, so Characters found imply their bytes found. Their SQL measures bytes (`instr`,
///   blobs), never `length()` of text, which stops at a NUL.
/// - String `+` is exact only when its right side is a literal that is empty or starts with ASCII: then
///   the concatenation of two NFC strings is NFC. Otherwise (`"e" + "\u{301}"`) it is evaluated in memory.
/// - `lowercased()`, `uppercased()`, String `count` and `localizedStandardContains` are Unicode-aware in
///   Swift but not in SQLite: never compiled.
/// - `/` and `%` compile only with a non-zero literal divisor (Swift traps on zero; SQLite returns NULL).
public struct SQLCompiler {
    public struct Fragment: Equatable, Sendable {
        public var sql: String
        public var arguments: [DatabaseValue]
        public var isExact: Bool
    }

    /// The table the expression's model lives in, as it appears in the query.
    let table: String

    public init(table: String) {
        self.table = table
    }

    /// A WHERE condition for the predicate, or nil when SQL cannot narrow it at all.
    public func condition(_ e: TypedExpression) -> Fragment? {
        switch e {
        case .and(let a, let b):
            let ca = condition(a), cb = condition(b)
            switch (ca, cb) {
            case (nil, nil): return nil
            case (let x?, nil), (nil, let x?): return Fragment(sql: x.sql, arguments: x.arguments, isExact: false)
            case (let x?, let y?): return Fragment(sql: "(\(x.sql) AND \(y.sql))", arguments: x.arguments + y.arguments, isExact: x.isExact && y.isExact)
            }
        case .or(let a, let b):
            guard let x = condition(a), let y = condition(b) else { return nil }
            return Fragment(sql: "(\(x.sql) OR \(y.sql))", arguments: x.arguments + y.arguments, isExact: x.isExact && y.isExact)
        case .not(let a):
            guard let x = condition(a), x.isExact else { return nil }
            return Fragment(sql: "(NOT \(x.sql))", arguments: x.arguments, isExact: true)
        case .compare(let op, let a, let b):
            guard let x = value(a), let y = value(b) else { return nil }
            let sqlOp = op == "==" ? "IS" : op == "!=" ? "IS NOT" : op
            return Fragment(sql: "(\(x.sql) \(sqlOp) \(y.sql))", arguments: x.arguments + y.arguments, isExact: true)
        case .inList(let items, let needle):
            guard let n = value(needle) else { return nil }
            var parts: [String] = [], arguments: [DatabaseValue] = []
            for item in items {
                guard let v = value(item) else { return nil }
                parts.append("\(n.sql) IS \(v.sql)")
                arguments += n.arguments + v.arguments
            }
            return Fragment(sql: parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")", arguments: arguments, isExact: true)
        case .toManyContains(let list, let needle):
            guard case .literal(.string(let id), _) = needle, let l = value(list) else { return nil }
            // Ids are fixed-width base32, so the quoted id appears in the JSON array exactly when it is an element.
            return Fragment(sql: "(instr(\(l.sql), ?) > 0)", arguments: l.arguments + [.text("\"\(id)\"")], isExact: true)
        case .stringMethod(let name, let base, let argument, _):
            guard let b = value(base) else { return nil }
            if name == "isEmpty" { return Fragment(sql: "(\(b.sql) = '')", arguments: b.arguments, isExact: true) }
            guard let argument, let a = value(argument) else { return nil }
            switch name {
            case "contains":
                return Fragment(sql: "(instr(\(b.sql), \(a.sql)) > 0)", arguments: b.arguments + a.arguments, isExact: false)
            case "hasPrefix":
                return Fragment(sql: "(instr(\(b.sql), \(a.sql)) = 1)", arguments: b.arguments + a.arguments, isExact: false)
            case "hasSuffix":
                return Fragment(sql: "(\(a.sql) = '' OR substr(CAST(\(b.sql) AS BLOB), -length(CAST(\(a.sql) AS BLOB))) = CAST(\(a.sql) AS BLOB))",
                                arguments: a.arguments + b.arguments + a.arguments + a.arguments, isExact: false)
            default: return nil
            }
        case .literal(.bool(let v), _):
            return Fragment(sql: v ? "1" : "0", arguments: [], isExact: true)
        case .column, .coalesce:
            guard e.type == .bool, let v = value(e) else { return nil }
            return Fragment(sql: "(\(v.sql) IS 1)", arguments: v.arguments, isExact: true)
        default:
            return nil
        }
    }

    /// SQL for a value, only when it is exactly the evaluator's value.
    public func value(_ e: TypedExpression) -> Fragment? {
        switch e {
        case .literal(.string(let text), .string):
            // An enum's literal is the manifest's own spelling, stored as it is: only String literals are NFC'd.
            return Fragment(sql: "?", arguments: [.text(ModelContext.nfc(text))], isExact: true)
        case .literal(let v, _):
            return Fragment(sql: "?", arguments: [v.databaseValue], isExact: true)
        case .column(let path, _):
            let column = SQL.quoteIdentifier(path.column)
            guard let hop = path.hop else { return Fragment(sql: "\(table).\(column)", arguments: [], isExact: true) }
            // Aliased: the target may be the same table (a self-relationship), which would shadow the outer row.
            return Fragment(sql: "(SELECT \"_hop\".\(column) FROM \(SQL.quoteIdentifier(hop.target)) AS \"_hop\" WHERE \"_hop\".\"id\" = \(table).\(SQL.quoteIdentifier(hop.name)))",
                            arguments: [], isExact: true)
        case .negate(let a, _):
            guard let x = value(a) else { return nil }
            return Fragment(sql: "(-\(x.sql))", arguments: x.arguments, isExact: true)
        case .arithmetic(let op, let a, let b, let type):
            guard let x = value(a), let y = value(b) else { return nil }
            if op == "/" || op == "%" {
                guard case .literal(let divisor, _) = b, divisor != .int(0), divisor != .double(0) else { return nil }
            }
            if type == .string {
                guard case .literal(.string(let suffix), _) = b, ModelContext.nfc(suffix).unicodeScalars.first?.isASCII ?? true else { return nil }
            }
            let sqlOp = type == .string ? "||" : op
            return Fragment(sql: "(\(x.sql) \(sqlOp) \(y.sql))", arguments: x.arguments + y.arguments, isExact: true)
        case .coalesce(let a, let b, _):
            guard let x = value(a), let y = value(b) else { return nil }
            return Fragment(sql: "COALESCE(\(x.sql), \(y.sql))", arguments: x.arguments + y.arguments, isExact: true)
        case .toManyCount(let a):
            guard let x = value(a) else { return nil }
            // No JSON functions in SQLite 3.15: count the commas between ids (ids never contain commas).
            return Fragment(sql: "(CASE WHEN \(x.sql) = '[]' THEN 0 ELSE length(\(x.sql)) - length(replace(\(x.sql), ',', '')) + 1 END)",
                            arguments: x.arguments + x.arguments + x.arguments, isExact: true)
        default:
            // A Bool-valued expression used as a value (`(a == b) == true`).
            guard e.type == .bool, let c = condition(e), c.isExact else { return nil }
            return c
        }
    }
}
