/// Why a raw SQL condition (VeinCore's `ModelPredicate`) was refused before it ran.
public enum SQLConditionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A `)` closing more than the condition opened, or a `(` left open: the text would reach outside
    /// the parentheses the fetch puts around it (and past the fetch's own condition, order and window).
    case unbalancedParentheses(String)
    /// A `/*` comment, string literal or quoted identifier that does not end: SQLite would read the rest
    /// of the fetch's statement as part of it.
    case unterminated(String)
    /// A `;`: one condition, not a statement list.
    case semicolon(String)
    /// A numbered or named parameter (`?1`, `:name`, `@name`, `$name`): arguments bind by position, and
    /// the fetch binds its own after them, so only plain `?` keeps both in place.
    case namedParameter(String, parameter: String)
    /// The condition has a different number of `?` than the arguments given.
    case argumentCount(String, parameters: Int, arguments: Int)

    public var description: String {
        switch self {
        case .unbalancedParentheses(let sql):
            return "SQL condition \"\(sql)\": its parentheses do not balance; a condition cannot close a parenthesis it did not open"
        case .unterminated(let sql):
            return "SQL condition \"\(sql)\": a comment, string or quoted name does not end"
        case .semicolon(let sql):
            return "SQL condition \"\(sql)\": ';' is not allowed; a condition is one expression, not statements"
        case .namedParameter(let sql, let parameter):
            return "SQL condition \"\(sql)\": parameter \(parameter) is numbered or named; use '?' (arguments bind in order)"
        case .argumentCount(let sql, let parameters, let arguments):
            return "SQL condition \"\(sql)\": it has \(parameters) '?' but \(Phrase.count(arguments, "argument", "were")) given"
        }
    }

    /// Throws unless `sql` stays inside the parentheses put around it: its parentheses balance and never
    /// close more than they opened, outside string literals, quoted identifiers and comments; every
    /// comment, literal and quoted identifier ends; no `;`. A `--` comment ends at the line's end, and the
    /// fetch puts the closing parenthesis on a line of its own, so it is allowed.
    package static func requireEnclosable(_ sql: String) throws {
        let bytes = Array(sql.utf8)
        var depth = 0, i = 0
        func skipQuoted(_ close: UInt8, doubled: Bool) throws {
            i += 1
            while i < bytes.count {
                if bytes[i] == close {
                    if doubled, i + 1 < bytes.count, bytes[i + 1] == close { i += 2; continue }
                    i += 1
                    return
                }
                i += 1
            }
            throw SQLConditionError.unterminated(sql)
        }
        while i < bytes.count {
            let byte = bytes[i]
            let next: UInt8? = i + 1 < bytes.count ? bytes[i + 1] : nil
            switch byte {
            case UInt8(ascii: "'"): try skipQuoted(UInt8(ascii: "'"), doubled: true)
            case UInt8(ascii: "\""): try skipQuoted(UInt8(ascii: "\""), doubled: true)
            case UInt8(ascii: "`"): try skipQuoted(UInt8(ascii: "`"), doubled: true)
            case UInt8(ascii: "["): try skipQuoted(UInt8(ascii: "]"), doubled: false)
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                i += 2
                while i + 1 < bytes.count, !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                guard i + 1 < bytes.count else { throw SQLConditionError.unterminated(sql) }
                i += 2
            case UInt8(ascii: "("):
                depth += 1
                i += 1
            case UInt8(ascii: ")"):
                depth -= 1
                guard depth >= 0 else { throw SQLConditionError.unbalancedParentheses(sql) }
                i += 1
            case UInt8(ascii: ";"):
                throw SQLConditionError.semicolon(sql)
            default:
                i += 1
            }
        }
        guard depth == 0 else { throw SQLConditionError.unbalancedParentheses(sql) }
    }
}
