import Foundation

/// Reads a JSON document of any size from a file descriptor a piece at a time (docs/interchange.md: import never holds
/// the whole document). It tokenizes only the structure around the records (`{`, `"key"`, `:`, `,`, `[`)
/// and hands out each record's bytes whole; `JSONParser` then parses that one record. Line and column are
/// tracked over the whole stream, so every error can say where it is.
///
/// Invariant: `buffer[index...]` holds the unread bytes; everything before `index` has been consumed
/// and counted into `line`/`column`.
package final class JSONStreamReader {
    /// A record larger than this is refused rather than buffered: it is almost certainly an unterminated
    /// string or array, and would otherwise grow without bound.
    package static let maxValueBytes = 256 << 20
    package static let defaultChunkSize = 1 << 20

    private let descriptor: Int32
    /// How many bytes one read asks for. Tests and the fuzzer use a few bytes, so that values, strings
    /// and escapes are cut at every possible place by a refill.
    private let chunkSize: Int
    private var buffer: [UInt8] = []
    private var index = 0
    private var atEnd = false
    package private(set) var line = 1
    package private(set) var column = 1

    /// read(2) failed (with errno `code`): the input cannot be read, which says nothing about its JSON.
    package struct ReadError: Error {
        package let code: Int32
    }

    package init(descriptor: Int32, chunkSize: Int = JSONStreamReader.defaultChunkSize) {
        self.descriptor = descriptor
        self.chunkSize = chunkSize
    }

    /// Reads more bytes, keeping the unread ones (and, while a value is being captured, its start).
    private func refill(keepingFrom start: Int) throws -> Bool {
        guard !atEnd else { return false }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            index -= start
        }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var n: Int
        repeat { n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, chunkSize) } } while n < 0 && errno == EINTR
        if n < 0 { throw ReadError(code: errno) }
        if n == 0 { atEnd = true; return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func advance(over bytes: ArraySlice<UInt8>) {
        for c in bytes {
            if c == 0x0A { line += 1; column = 1 } else if c & 0xC0 != 0x80 { column += 1 }
        }
    }

    package func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: column, message: message)
    }

    /// The next byte after whitespace, without consuming it; nil at the end of the input.
    package func peek() throws -> UInt8? {
        while true {
            while index < buffer.count {
                let c = buffer[index]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return c }
                advance(over: buffer[index...index])
                index += 1
            }
            guard try refill(keepingFrom: index) else { return nil }
        }
    }

    /// Consumes `c` (after whitespace) or throws, naming what was expected.
    package func expect(_ c: UInt8, _ expected: String) throws {
        guard let next = try peek() else { throw error("unexpected end of input, expected \(expected)") }
        guard next == c else { throw error("unexpected \(Self.describe(next)), expected \(expected)") }
        advance(over: buffer[index...index])
        index += 1
    }

    /// Consumes `c` if it comes next (after whitespace).
    package func consume(_ c: UInt8) throws -> Bool {
        guard try peek() == c else { return false }
        advance(over: buffer[index...index])
        index += 1
        return true
    }

    /// One whole value (after whitespace), parsed: the record-sized unit of the stream. Errors inside it
    /// are reported at their place in the whole stream.
    package func readValue() throws -> JSONValue {
        guard try peek() != nil else { throw error("unexpected end of input, expected a value") }
        let (startLine, startColumn) = (line, column)
        let bytes = try captureValue()
        do {
            return try JSONParser.parse(bytes)
        } catch let e as JSONSyntaxError {
            throw JSONSyntaxError(line: startLine + e.line - 1, column: e.line == 1 ? startColumn + e.column - 1 : e.column, message: e.message)
        }
    }

    /// The bytes of the value starting at `index`: an object or array to its matching bracket (strings and
    /// escapes respected), a string to its closing quote, anything else to the next delimiter.
    private func captureValue() throws -> [UInt8] {
        var start = index
        var i = index
        var depth = 0, inString = false, escaped = false
        let first = buffer[index]
        let scalar = first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"")
        scan: while true {
            while i < buffer.count {
                let c = buffer[i]
                if inString {
                    if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 { i += 1; break scan }
                    }
                } else if scalar {
                    if c == UInt8(ascii: ",") || c == UInt8(ascii: "]") || c == UInt8(ascii: "}") || c <= 0x20 { break scan }
                } else {
                    switch c {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { i += 1; break scan }
                    default: break
                    }
                }
                i += 1
            }
            if i - start > Self.maxValueBytes { throw error("a value longer than \(Self.maxValueBytes >> 20) MiB (an unterminated string or array?)") }
            let offset = i - start
            let more = try refill(keepingFrom: start)
            // refill may have moved the unread bytes to the front even when it found no more input.
            start = index
            i = start + offset
            guard more else {
                if scalar { break scan }
                throw error(inString ? "unterminated string" : "unexpected end of input inside a value")
            }
        }
        let bytes = Array(buffer[start..<i])
        advance(over: buffer[start..<i])
        index = i
        return bytes
    }

    /// The next line's bytes without its newline (JSON Lines), or nil at the end of the input.
    package func readLine() throws -> [UInt8]? {
        var i = index
        while true {
            if let newline = Self.firstNewline(in: buffer, from: i) {
                let bytes = Array(buffer[index..<newline])
                index = newline + 1
                line += 1
                column = 1
                return bytes
            }
            i = buffer.count
            if i - index > Self.maxValueBytes { throw error("a line longer than \(Self.maxValueBytes >> 20) MiB") }
            let offset = i - index
            guard try refill(keepingFrom: index) else {
                guard index < buffer.count else { return nil }
                let bytes = Array(buffer[index...])
                index = buffer.count
                return bytes
            }
            i = index + offset
        }
    }

    /// `buffer[from...].firstIndex(of: 0x0A)` through `memchr`, which compares many bytes at a time: every
    /// line of an import is scanned for its end.
    private static func firstNewline(in buffer: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { all in
            guard start < all.count, let base = all.baseAddress,
                  let found = memchr(base + start, 0x0A, all.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    static func describe(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : String(format: "byte 0x%02X", c)
    }
}
