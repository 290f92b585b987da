/// Tokens of the expression language (docs/expressions.md): the body of a Swift `#Predicate` closure.
package struct Token: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case identifier(String)
        /// `$0`
        case dollarZero
        case int(Int64)
        case double(Double)
        case string(String)
        /// `#date`, `#id`
        case hashIdentifier(String)
        /// Operators and punctuation: `== != < <= > >= && || ! + - * / % ?? ?. . , ( ) [ ] { } : ... ..<`
        case symbol(String)
        case end
    }

    public let kind: Kind
    /// Character offset of the token's first character.
    public let column: Int
}

/// Splits an expression into tokens. Strings take Swift's escapes (`\n \t \r \0 \\ \" \' \u{…}`), raw strings
/// (`#"…"#`) Swift's rules for them; integers may be written `0x1F`, `0o17`, `0b101`, with `_` between digits.
///
/// Reads Unicode scalars, as Swift's own lexer does, not Characters: a string may start with a combining
/// or extending scalar (`"\u{301}"` typed raw, a ZWJ, a variation selector), which would otherwise join the
/// opening quote into one Character that is no quote. Columns stay in Characters, where a caret lines up.
package struct ExpressionLexer {
    private let scalars: SourceScalars
    /// The Character offset of each scalar (and of the end), for columns; nil when it is the scalar's
    /// own offset (ASCII without "\r\n": no array of 8 bytes a character for the common case).
    private let characterOffsets: [Int]?
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
        var scalars: [Unicode.Scalar] = [], offsets: [Int] = []
        let bytes = Array(source.utf8)
        if bytes.allSatisfy({ $0 < 0x80 }) {
            // ASCII: a scalar per byte and a Character per scalar, but for "\r\n", one Character; no
            // grapheme breaking (it was a sixth of a REPL script's time).
            self.scalars = SourceScalars(ascii: bytes)
            guard bytes.contains(0x0D) else {
                self.characterOffsets = nil
                return
            }
            offsets.reserveCapacity(bytes.count + 1)
            var offset = -1, previous: UInt8 = 0
            for byte in bytes {
                if !(byte == 0x0A && previous == 0x0D) { offset += 1 }
                offsets.append(offset)
                previous = byte
            }
            offsets.append(offset + 1)
        } else {
            for (offset, character) in source.enumerated() {
                for scalar in character.unicodeScalars {
                    scalars.append(scalar)
                    offsets.append(offset)
                }
            }
            offsets.append(source.count)
            self.scalars = SourceScalars(scalars)
        }
        self.characterOffsets = offsets
    }

    private static let symbols3: Set<String> = ["...", "..<"]
    private static let symbols2: Set<String> = ["==", "!=", "<=", ">=", "&&", "||", "??", "?."]
    private static let symbols1: Set<Unicode.Scalar> = ["?", "<", ">", "!", "+", "-", "*", "/", "%", ".", ",", "(", ")", "[", "]", "{", "}", ":"]
    /// The ASCII scalars that may start a symbol of three, two and one scalars (every symbol is ASCII): a
    /// token is looked up in the sets only when its first scalar may start one (hashing a candidate for
    /// every token was a tenth of a REPL script's lexing).
    private static let symbolStarts: [(three: Bool, two: Bool, one: Bool)] = (0..<128).map { byte in
        let scalar = Unicode.Scalar(UInt8(byte))
        return (symbols3.contains { $0.unicodeScalars.first == scalar }, symbols2.contains { $0.unicodeScalars.first == scalar },
                symbols1.contains(scalar))
    }


    private func error(_ message: String, at scalarIndex: Int, kind: ExpressionError.Kind = .wrong) -> ExpressionError {
        ExpressionError(message, column: column(min(max(scalarIndex, 0), scalars.count)), source: source, kind: kind)
    }

    private func token(_ kind: Token.Kind, at scalarIndex: Int) -> Token {
        Token(kind: kind, column: column(scalarIndex))
    }

    private func column(_ scalarIndex: Int) -> Int {
        characterOffsets?[scalarIndex] ?? scalarIndex
    }

    // ASCII answers first: a scalar's Unicode properties are a table lookup each.
    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }
    private static func isASCIILetter(_ c: Unicode.Scalar) -> Bool { (c.value | 0x20) >= 0x61 && (c.value | 0x20) <= 0x7A }
    private static func isWhitespace(_ c: Unicode.Scalar) -> Bool {
        c.isASCII ? c.value == 0x20 || (c.value >= 0x09 && c.value <= 0x0D) : c.properties.isWhitespace
    }
    private static func isIdentifierHead(_ c: Unicode.Scalar) -> Bool {
        c.isASCII ? c == "_" || isASCIILetter(c) : c.properties.isAlphabetic
    }
    /// Letters, digits, `_`, and the marks that extend a letter (an NFD `é` is `e` and U+0301).
    private static func isIdentifierBody(_ c: Unicode.Scalar) -> Bool {
        if c.isASCII { return c == "_" || isASCIILetter(c) || isDigit(c) }
        if isIdentifierHead(c) || c.properties.numericType != nil { return true }
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    mutating func next() throws(ExpressionError) -> Token {
        while i < scalars.count, Self.isWhitespace(scalars[i]) { i += 1 }
        guard i < scalars.count else { return token(.end, at: scalars.count) }
        let start = i
        let c = scalars[i]
        if c == "$" {
            guard i + 1 < scalars.count, scalars[i + 1] == "0" else { throw error("only $0 may be used (the object tested)", at: start) }
            i += 2
            return token(.dollarZero, at: start)
        }
        if c == "#" {
            var hashes = 1
            while i + hashes < scalars.count, scalars[i + hashes] == "#" { hashes += 1 }
            if i + hashes < scalars.count, scalars[i + hashes] == "\"" {
                i += hashes
                return token(.string(try string(start, hashes: hashes)), at: start)
            }
            i += 1
            let name = identifier()
            guard !name.isEmpty else { throw error("expected #date or #id after '#'", at: start) }
            return token(.hashIdentifier(name), at: start)
        }
        if Self.isIdentifierHead(c) {
            return token(.identifier(identifier()), at: start)
        }
        if Self.isDigit(c) { return try number(start) }
        if c == "\"" { return token(.string(try string(start)), at: start) }
        let starts = c.isASCII ? Self.symbolStarts[Int(c.value)] : (three: false, two: false, one: false)
        if starts.three, i + 2 < scalars.count {
            let triple = scalars.string(i..<i + 3)
            if ExpressionLexer.symbols3.contains(triple) {
                i += 3
                return token(.symbol(triple), at: start)
            }
        }
        if starts.two, i + 1 < scalars.count {
            let pair = scalars.string(i..<i + 2)
            if ExpressionLexer.symbols2.contains(pair) {
                i += 2
                return token(.symbol(pair), at: start)
            }
        }
        if starts.one {
            i += 1
            return token(.symbol(String(c)), at: start)
        }
        if c == "=" && allowAssignment {
            i += 1
            return token(.symbol("="), at: start)
        }
        if c == "=" { throw error("use == to compare ('=' assigns, and only in 'set')", at: start) }
        if c == "'" { throw error("strings are written in double quotes, as in Swift", at: start) }
        if c == "&" || c == "|" { throw error("use \(c)\(c) (logical \(c == "&" ? "and" : "or"))", at: start) }
        throw error("unexpected character '\(c)'", at: start)
    }

    private mutating func identifier() -> String {
        let start = i
        if i < scalars.count, Self.isIdentifierHead(scalars[i]) {
            i += 1
            while i < scalars.count, Self.isIdentifierBody(scalars[i]) { i += 1 }
        }
        return scalars.string(start..<i)
    }

    /// Swift's integer literal prefixes (lower case only, as in Swift), with the digits each allows.
    private static let radixes: [Unicode.Scalar: (radix: Int, name: String, digits: String)] = [
        "x": (16, "hexadecimal", "0-9, A-F"), "o": (8, "octal", "0-7"), "b": (2, "binary", "0 or 1"),
    ]

    private mutating func number(_ start: Int) throws(ExpressionError) -> Token {
        if scalars[i] == "0", i + 1 < scalars.count, let radix = Self.radixes[scalars[i + 1]] {
            return try prefixedNumber(start, radix)
        }
        var text = ""
        var isDouble = false
        func digitsAndUnderscores() {
            while i < scalars.count, Self.isDigit(scalars[i]) || scalars[i] == "_" {
                if scalars[i] != "_" { text.unicodeScalars.append(scalars[i]) }
                i += 1
            }
        }
        digitsAndUnderscores()
        // A '.' followed by a digit is a fraction; otherwise it is member access (`1.description`).
        if i + 1 < scalars.count, scalars[i] == ".", Self.isDigit(scalars[i + 1]) {
            isDouble = true
            text.append(".")
            i += 1
            digitsAndUnderscores()
        }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            isDouble = true
            text.append("e")
            i += 1
            if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { text.unicodeScalars.append(scalars[i]); i += 1 }
            let digits = i
            while i < scalars.count, Self.isDigit(scalars[i]) { text.unicodeScalars.append(scalars[i]); i += 1 }
            if i == digits { throw error("expected digits in the exponent", at: start) }
        }
        if isDouble {
            guard let d = Double(text) else { throw error("invalid number \(text)", at: start) }
            return token(.double(d), at: start)
        }
        return try integer(UInt64(text), shown: text, start)
    }

    /// 2^63 only exists negated (Int64.min); the lexer cannot see the sign, so it hands the parser
    /// Int64.min as that magnitude's marker and the parser accepts it only after a unary minus.
    private func integer(_ magnitude: UInt64?, shown: String, _ start: Int) throws(ExpressionError) -> Token {
        if magnitude == UInt64(Int64.max) + 1 { return token(.int(.min), at: start) }
        guard let magnitude, let v = Int64(exactly: magnitude) else { throw error("integer \(shown) does not fit in 64 bits", at: start) }
        return token(.int(v), at: start)
    }

    /// `0x1F`, `0o17`, `0b101` (with `_` between digits), and hexadecimal floats `0x1.8p3`, by Swift's rules:
    /// the first character after the prefix is a digit, a hexadecimal fraction needs an exponent.
    private mutating func prefixedNumber(_ start: Int, _ radix: (radix: Int, name: String, digits: String)) throws(ExpressionError) -> Token {
        i += 2
        func isDigit(_ c: Unicode.Scalar) -> Bool { c.isASCII && Character(c).hexDigitValue.map { $0 < radix.radix } == true }
        func digits() throws(ExpressionError) -> String {
            guard i < scalars.count, Self.isIdentifierBody(scalars[i]), scalars[i] != "_" else {
                throw error("expected a digit after integer literal prefix", at: i)
            }
            var text = ""
            while i < scalars.count, Self.isIdentifierBody(scalars[i]) {
                let c = scalars[i]
                if radix.radix == 16, c == "p" || c == "P" { break }
                if c != "_" {
                    guard isDigit(c) else {
                        throw error("'\(c)' is not a valid \(radix.name) digit (\(radix.digits)) in integer literal", at: i)
                    }
                    text.unicodeScalars.append(c)
                }
                i += 1
            }
            return text
        }
        let whole = try digits()
        let prefix = "0" + String(scalars[start + 1])
        guard radix.radix == 16, i < scalars.count,
              scalars[i] == "p" || scalars[i] == "P" || (scalars[i] == "." && i + 1 < scalars.count && isDigit(scalars[i + 1])) else {
            return try integer(UInt64(whole, radix: radix.radix), shown: prefix + whole, start)
        }
        var text = "0x" + whole
        let dot = i
        if scalars[i] == "." {
            i += 1
            text.append(".")
            while i < scalars.count, isDigit(scalars[i]) || scalars[i] == "_" {
                if scalars[i] != "_" { text.unicodeScalars.append(scalars[i]) }
                i += 1
            }
        }
        guard i < scalars.count, scalars[i] == "p" || scalars[i] == "P" else {
            // `0xff.description` is a member access, as Swift's lexer reads it; `0x1.8` lacks its exponent.
            guard Self.isDigit(scalars[dot + 1]) else {
                i = dot
                return try integer(UInt64(whole, radix: radix.radix), shown: prefix + whole, start)
            }
            throw error("hexadecimal floating point literal must end with an exponent", at: i)
        }
        text += "p"
        i += 1
        if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { text.unicodeScalars.append(scalars[i]); i += 1 }
        let exponent = i
        while i < scalars.count, Self.isDigit(scalars[i]) || scalars[i] == "_" {
            if scalars[i] != "_" { text.unicodeScalars.append(scalars[i]) }
            i += 1
        }
        if i == exponent || scalars[exponent] == "_" { throw error("expected digits in the exponent", at: start) }
        guard let d = Double(text) else { throw error("invalid number \(prefix + text.dropFirst(2))", at: start) }
        return token(.double(d), at: start)
    }

    /// A string literal; `hashes` > 0 for a raw string `#"…"#`, where a backslash or quote is literal unless
    /// followed by as many `#` as opened it (`\#n` is a newline in `#"…"#`), as in Swift.
    private mutating func string(_ start: Int, hashes: Int = 0) throws(ExpressionError) -> String {
        i += 1
        var out = ""
        // Plain scalars are appended a run at a time, not one by one.
        var run = i
        while true {
            guard i < scalars.count else { throw error("unterminated string", at: start, kind: .incomplete) }
            let c = scalars[i]
            i += 1
            guard c == "\"" || c == "\\" else { continue }
            out += scalars.string(run..<(i - 1))
            run = i
            if c == "\"", hashesFollow(hashes) {
                i += hashes
                if hashes > 0, i < scalars.count, scalars[i] == "#" {
                    throw error("too many '#' characters in closing delimiter", at: i)
                }
                return out
            }
            guard c == "\\", hashesFollow(hashes) else { out.unicodeScalars.append(c); continue }
            let backslash = i - 1
            i += hashes
            guard i < scalars.count else { throw error("unterminated string", at: start, kind: .incomplete) }
            let e = scalars[i]
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
                guard i < scalars.count, scalars[i] == "{" else { throw error("expected \\u{…}", at: backslash) }
                i += 1
                var hex = ""
                while i < scalars.count, scalars[i] != "}" { hex.unicodeScalars.append(scalars[i]); i += 1 }
                guard i < scalars.count, let v = UInt32(hex, radix: 16), hex.count <= 8, let scalar = Unicode.Scalar(v) else {
                    throw error("invalid unicode escape \\u{\(hex)}", at: start)
                }
                i += 1
                out.unicodeScalars.append(scalar)
            default: throw error("invalid escape \\\(e)", at: backslash)
            }
            run = i
        }
    }

    private func hashesFollow(_ count: Int) -> Bool {
        i + count <= scalars.count && scalars.all(i..<i + count, are: "#")
    }
}
