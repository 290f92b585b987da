/// Tokens of the expression language (SPEC §4): the body of a Swift `#Predicate` closure.
public struct Token: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case identifier(String)
        /// `$0`
        case dollarZero
        case int(Int64)
        case double(Double)
        case string(String)
        /// `#date`, `#id`
        case hashIdentifier(String)
        /// Operators and punctuation: `== != < <= > >= && || ! + - * / % ?? . , ( ) [ ] :`
        case symbol(String)
        case end
    }

    public let kind: Kind
    /// Character offset of the token's first character.
    public let column: Int
}

/// Splits an expression into tokens. Strings take Swift's escapes (`\n \t \r \0 \\ \" \' \u{…}`).
public struct ExpressionLexer {
    private let chars: [Character]
    private let source: String
    private var i = 0
    private var allowAssignment = false

    /// `allowAssignment` lets a lone `=` through as a symbol, for `update … set field = value`.
    public static func tokenize(_ source: String, allowAssignment: Bool = false) throws(ExpressionError) -> [Token] {
        var lexer = ExpressionLexer(source: source)
        lexer.allowAssignment = allowAssignment
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    init(source: String) {
        self.source = source
        self.chars = Array(source)
    }

    private static let symbols2: Set<String> = ["==", "!=", "<=", ">=", "&&", "||", "??"]
    private static let symbols1: Set<Character> = ["<", ">", "!", "+", "-", "*", "/", "%", ".", ",", "(", ")", "[", "]", ":"]

    private func error(_ message: String, at column: Int) -> ExpressionError {
        ExpressionError(message, column: column, source: source)
    }

    mutating func next() throws(ExpressionError) -> Token {
        while i < chars.count, chars[i].isWhitespace { i += 1 }
        guard i < chars.count else { return Token(kind: .end, column: chars.count) }
        let start = i
        let c = chars[i]
        if c == "$" {
            guard i + 1 < chars.count, chars[i + 1] == "0" else { throw error("only $0 may be used (the object tested)", at: start) }
            i += 2
            return Token(kind: .dollarZero, column: start)
        }
        if c == "#" {
            i += 1
            let name = identifier()
            guard !name.isEmpty else { throw error("expected #date or #id after '#'", at: start) }
            return Token(kind: .hashIdentifier(name), column: start)
        }
        if c.isLetter || c == "_" {
            return Token(kind: .identifier(identifier()), column: start)
        }
        if c.isASCII && c.isNumber { return try number(start) }
        if c == "\"" { return Token(kind: .string(try string(start)), column: start) }
        if i + 1 < chars.count, ExpressionLexer.symbols2.contains(String([c, chars[i + 1]])) {
            i += 2
            return Token(kind: .symbol(String([c, chars[i - 1]])), column: start)
        }
        if ExpressionLexer.symbols1.contains(c) {
            i += 1
            return Token(kind: .symbol(String(c)), column: start)
        }
        if c == "=" && allowAssignment {
            i += 1
            return Token(kind: .symbol("="), column: start)
        }
        if c == "=" { throw error("use == to compare ('=' assigns, and only in 'set')", at: start) }
        if c == "'" { throw error("strings are written in double quotes, as in Swift", at: start) }
        if c == "&" || c == "|" { throw error("use \(c)\(c) (logical \(c == "&" ? "and" : "or"))", at: start) }
        throw error("unexpected character '\(c)'", at: start)
    }

    private mutating func identifier() -> String {
        let start = i
        while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
        return String(chars[start..<i])
    }

    private mutating func number(_ start: Int) throws(ExpressionError) -> Token {
        var text = ""
        var isDouble = false
        while i < chars.count, chars[i].isASCII, chars[i].isNumber || chars[i] == "_" {
            if chars[i] != "_" { text.append(chars[i]) }
            i += 1
        }
        // A '.' followed by a digit is a fraction; otherwise it is member access (`1.description`).
        if i + 1 < chars.count, chars[i] == ".", chars[i + 1].isASCII, chars[i + 1].isNumber {
            isDouble = true
            text.append(".")
            i += 1
            while i < chars.count, chars[i].isASCII, chars[i].isNumber || chars[i] == "_" {
                if chars[i] != "_" { text.append(chars[i]) }
                i += 1
            }
        }
        if i < chars.count, chars[i] == "e" || chars[i] == "E" {
            isDouble = true
            text.append("e")
            i += 1
            if i < chars.count, chars[i] == "+" || chars[i] == "-" { text.append(chars[i]); i += 1 }
            let digits = i
            while i < chars.count, chars[i].isASCII, chars[i].isNumber { text.append(chars[i]); i += 1 }
            if i == digits { throw error("expected digits in the exponent", at: start) }
        }
        if isDouble {
            guard let d = Double(text) else { throw error("invalid number \(text)", at: start) }
            return Token(kind: .double(d), column: start)
        }
        // 2^63 only exists negated (Int64.min); the lexer cannot see the sign, so it hands the parser
        // Int64.min as that magnitude's marker and the parser accepts it only after a unary minus.
        if text.drop(while: { $0 == "0" }) == "9223372036854775808" { return Token(kind: .int(.min), column: start) }
        guard let v = Int64(text) else { throw error("integer \(text) does not fit in 64 bits", at: start) }
        return Token(kind: .int(v), column: start)
    }

    private mutating func string(_ start: Int) throws(ExpressionError) -> String {
        i += 1
        var out = ""
        while true {
            guard i < chars.count else { throw error("unterminated string", at: start) }
            let c = chars[i]
            i += 1
            if c == "\"" { return out }
            guard c == "\\" else { out.append(c); continue }
            guard i < chars.count else { throw error("unterminated string", at: start) }
            let e = chars[i]
            i += 1
            switch e {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "0": out.append("\0")
            case "\\": out.append("\\")
            case "\"": out.append("\"")
            case "'": out.append("'")
            case "u":
                guard i < chars.count, chars[i] == "{" else { throw error("expected \\u{…}", at: i - 2) }
                i += 1
                var hex = ""
                while i < chars.count, chars[i] != "}" { hex.append(chars[i]); i += 1 }
                guard i < chars.count, let v = UInt32(hex, radix: 16), hex.count <= 8, let scalar = Unicode.Scalar(v) else {
                    throw error("invalid unicode escape \\u{\(hex)}", at: start)
                }
                i += 1
                out.unicodeScalars.append(scalar)
            default: throw error("invalid escape \\\(e)", at: i - 2)
            }
        }
    }
}
