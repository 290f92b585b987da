import Foundation

/// A syntax error in JSON text, with the 1-based line and column where it was found.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let message: String
    public var description: String { "\(line):\(column): \(message)" }
}

/// Parses JSON, or JSON5 when `json5` is set (comments, trailing commas, unquoted keys, single-quoted
/// strings, hex numbers, leading or trailing decimal points, `Infinity`, `NaN`, a leading `+`).
///
/// Recursive descent over UTF-8 bytes. Nesting is limited to `maxDepth` so hostile input cannot exhaust
/// the stack; duplicate keys in one object are an error, since a manifest that names a field twice is
/// ambiguous.
public struct JSONParser {
    package static let maxDepth = 512

    private let bytes: [UInt8]
    private let json5: Bool
    private var index = 0
    private var depth = 0

    public static func parse(_ text: String, json5: Bool = false) throws -> JSONValue {
        try parse(Array(text.utf8), json5: json5)
    }

    public static func parse(_ bytes: [UInt8], json5: Bool = false) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes, json5: json5)
        // A UTF-8 byte order mark is allowed at the start and ignored.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        try parser.skipWhitespace()
        let value = try parser.parseValue()
        try parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.error("unexpected \(parser.describeCurrent()) after the document") }
        return value
    }

    private init(bytes: [UInt8], json5: Bool) {
        self.bytes = bytes
        self.json5 = json5
    }

    // MARK: Values

    private mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "'") where json5: return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "I"), UInt8(ascii: "N"):
            guard json5 else { throw error("unexpected \(describeCurrent()), expected a value") }
            return try parseNumber()
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        try skipWhitespace()
        if peek(UInt8(ascii: "}")) { index += 1; return .object(object) }
        while true {
            let keyStart = index
            let key = try parseKey()
            if object[key] != nil {
                let p = position(at: keyStart)
                throw JSONSyntaxError(line: p.line, column: p.column, message: "duplicate key \"\(key)\"")
            }
            try skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after key \"\(key)\"") }
            index += 1
            try skipWhitespace()
            object.appendNew(key, try parseValue())
            try skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                try skipWhitespace()
                if json5 && peek(UInt8(ascii: "}")) { index += 1; return .object(object) }
                continue
            }
            if peek(UInt8(ascii: "}")) { index += 1; return .object(object) }
            throw error("expected ',' or '}' after an object member, found \(describeCurrent())")
        }
    }

    private mutating func parseKey() throws -> String {
        guard index < bytes.count else { throw error("unexpected end of input, expected a key") }
        let c = bytes[index]
        if c == UInt8(ascii: "\"") || (json5 && c == UInt8(ascii: "'")) { return try parseString() }
        if json5 && JSONParser.isIdentifierStart(c) {
            let start = index
            while index < bytes.count && JSONParser.isIdentifierPart(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        throw error("expected a key in double quotes, found \(describeCurrent())")
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        try skipWhitespace()
        if peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
        while true {
            items.append(try parseValue())
            try skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                try skipWhitespace()
                if json5 && peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
                continue
            }
            if peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
            throw error("expected ',' or ']' after an array element, found \(describeCurrent())")
        }
    }

    // MARK: Strings

    private mutating func parseString() throws -> String {
        let quote = bytes[index]
        index += 1
        // Most strings have no escapes: one scan (which also finds whether they are ASCII), no byte-by-byte copy.
        let start = index
        var highBits: UInt8 = 0
        index = bytes.withUnsafeBufferPointer { all in
            var i = start
            while i < all.count {
                let c = all[i]
                if c == quote || c == UInt8(ascii: "\\") || c < 0x20 { break }
                highBits |= c
                i += 1
            }
            return i
        }
        if index < bytes.count, bytes[index] == quote {
            let end = index
            let string: String? = bytes.withUnsafeBufferPointer { all in
                let slice = UnsafeBufferPointer(rebasing: all[start..<end])
                // ASCII needs no validation; anything else must be valid UTF-8.
                return highBits < 0x80 ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            }
            guard let string else { throw error("invalid UTF-8 in a string") }
            index += 1
            return string
        }
        var out = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let c = bytes[index]
            if c == quote { index += 1; break }
            if c == UInt8(ascii: "\\") {
                index += 1
                try parseEscape(into: &out)
                continue
            }
            if c < 0x20 { throw error("control character in a string (escape it as \\u\(String(format: "%04x", c)))") }
            out.append(c)
            index += 1
        }
        guard let string = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
        return string
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws {
        guard index < bytes.count else { throw error("unterminated string") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(c)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in \\u escape") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate in \\u escape")
            }
            out.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
        case UInt8(ascii: "'") where json5: out.append(c)
        case UInt8(ascii: "v") where json5: out.append(0x0B)
        case UInt8(ascii: "0") where json5: out.append(0)
        case UInt8(ascii: "x") where json5:
            let hi = try hexDigit(), lo = try hexDigit()
            out.append(contentsOf: Array(String(Unicode.Scalar(UInt8(hi << 4 | lo))).utf8))
        case 0x0A where json5: break  // line continuation
        case 0x0D where json5: if peek(0x0A) { index += 1 }
        default:
            index -= 1
            throw error("invalid escape \\\(describeCurrent())")
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 4 | UInt32(try hexDigit()) }
        return value
    }

    private mutating func hexDigit() throws -> UInt8 {
        guard index < bytes.count, let v = Hex.nibble(bytes[index]) else {
            throw error("expected a hexadecimal digit")
        }
        index += 1
        return v
    }

    // MARK: Numbers

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        var negative = false
        if peek(UInt8(ascii: "-")) || (json5 && peek(UInt8(ascii: "+"))) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        if json5 {
            if matchWord("Infinity") { return .double(negative ? -.infinity : .infinity) }
            if matchWord("NaN") { return .double(.nan) }
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "0"),
               bytes[index + 1] | 0x20 == UInt8(ascii: "x") {
                index += 2
                let digitsStart = index
                while index < bytes.count, Hex.nibble(bytes[index]) != nil { index += 1 }
                let digits = String(decoding: bytes[digitsStart..<index], as: UTF8.self)
                guard let magnitude = Int64(digits, radix: 16) else { throw error("invalid hexadecimal number") }
                return .int(negative ? -magnitude : magnitude)
            }
        }
        var isInteger = true
        let intStart = index
        while index < bytes.count, JSONParser.isDigit(bytes[index]) { index += 1 }
        let intDigits = index - intStart
        if intDigits == 0 && !(json5 && peek(UInt8(ascii: "."))) { throw error("invalid number") }
        if !json5 && intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") {
            throw error("numbers cannot have leading zeros")
        }
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            let fracStart = index
            while index < bytes.count, JSONParser.isDigit(bytes[index]) { index += 1 }
            if index == fracStart && (!json5 || intDigits == 0) { throw error("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            let expStart = index
            while index < bytes.count, JSONParser.isDigit(bytes[index]) { index += 1 }
            if index == expStart { throw error("expected digits in the exponent") }
        }
        var text = String(decoding: bytes[start..<index], as: UTF8.self)
        if text.hasPrefix("+") { text.removeFirst() }
        if isInteger, let i = Int64(text) { return .int(i) }
        guard let d = Double(text) else { throw error("invalid number \(text)") }
        return .double(d)
    }

    // MARK: Whitespace and comments

    private mutating func skipWhitespace() throws {
        while index < bytes.count {
            let c = bytes[index]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                index += 1
            } else if json5 && c == UInt8(ascii: "/") && index + 1 < bytes.count {
                if bytes[index + 1] == UInt8(ascii: "/") {
                    while index < bytes.count && bytes[index] != 0x0A { index += 1 }
                } else if bytes[index + 1] == UInt8(ascii: "*") {
                    let open = position()
                    index += 2
                    while true {
                        guard index + 1 < bytes.count else {
                            throw JSONSyntaxError(line: open.line, column: open.column, message: "unterminated /* comment")
                        }
                        if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") { index += 2; break }
                        index += 1
                    }
                } else {
                    return
                }
            } else if json5 && (c == 0x0B || c == 0x0C) {
                index += 1
            } else if json5 && c == 0xC2 && index + 1 < bytes.count && bytes[index + 1] == 0xA0 {
                index += 2  // no-break space
            } else {
                return
            }
        }
    }

    // MARK: Helpers

    private func peek(_ c: UInt8) -> Bool { index < bytes.count && bytes[index] == c }

    private mutating func matchWord(_ word: String) -> Bool {
        let w = Array(word.utf8)
        guard bytes.count - index >= w.count, Array(bytes[index..<index + w.count]) == w else { return false }
        index += w.count
        return true
    }

    private mutating func expectWord(_ word: String) throws {
        guard matchWord(word), index >= bytes.count || !JSONParser.isIdentifierPart(bytes[index]) else {
            throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let c = bytes[index]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return String(format: "byte 0x%02X", c)
    }

    /// Line and column of `offset` (the current index by default), counted only when an error needs them.
    private func position(at offset: Int? = nil) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for c in bytes[0..<min(offset ?? index, bytes.count)] {
            if c == 0x0A { line += 1; column = 1 } else if c & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    private func error(_ message: String) -> JSONSyntaxError {
        let p = position()
        return JSONSyntaxError(line: p.line, column: p.column, message: message)
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
    }
    static func isIdentifierPart(_ c: UInt8) -> Bool { isIdentifierStart(c) || isDigit(c) }
}
