import Foundation
import Vein

/// Gathers input lines into statements: a line that leaves a statement incomplete (an open bracket or
/// string, a trailing operator: the parser's `.incomplete` kind) waits for the next. Dot-commands and the
/// session words are one line; an empty line ends a statement that is still open, so its error shows.
///
/// A statement is at most `maxBytes` long: a longer one is refused with an error, and its readers never
/// take more of it than what is left (`remainingBytes`), so no input can exhaust memory.
struct StatementAccumulator {
    /// A complete statement, and what the parser made of it (nil for a dot-command or session word): the
    /// completeness check has parsed it already, and it is not parsed again to run.
    struct Statement {
        let text: String
        let parsed: Result<QueryStatement, ExpressionError>?
    }

    static let maxBytes = 64 << 20

    private(set) var lines: [String] = []
    private var byteCount = 0
    /// Follows the open strings and brackets of a statement past `parsedWhole` bytes, which is then
    /// parsed again only when neither is open; `scannedLines` of `lines` it has read.
    private var scanner = StatementScanner()
    private var scannedLines = 0

    /// Up to this size a statement is parsed again at each line, for the earliest error; past it, only
    /// once nothing is left open.
    static let parsedWhole = 64 << 10

    var isEmpty: Bool { lines.isEmpty }
    var text: String { lines.joined(separator: "\n") }
    /// How many more bytes the statement begun may take (a line's newline counts).
    var remainingBytes: Int { Self.maxBytes - byteCount }

    static let sessionWords: Set<String> = ["changes", "save", "rollback"]

    /// The error for input past `maxBytes`: refused as data, in a script as anywhere.
    static var tooLong: CommandFailure {
        CommandFailure("a statement longer than \(maxBytes >> 20) MiB is refused (is this input a script?)", exitCode: .dataError)
    }

    /// The complete statement this line finishes, or nil when more lines are needed or the line is empty
    /// (or a `//` comment). A line that makes the statement longer than `maxBytes` throws `tooLong` and
    /// drops the statement.
    mutating func add(_ line: String) throws -> Statement? {
        guard line.utf8.count + (lines.isEmpty ? 0 : 1) <= remainingBytes else {
            cancel()
            throw Self.tooLong
        }
        let trimmed = Self.trimmed(line)
        if lines.isEmpty {
            if trimmed.isEmpty || trimmed.hasPrefix("//") { return nil }
            if trimmed.hasPrefix(".") || Self.sessionWords.contains(String(trimmed)) { return Statement(text: String(trimmed), parsed: nil) }
        } else if trimmed.isEmpty {
            return finish()
        }
        byteCount += line.utf8.count + (lines.isEmpty ? 0 : 1)
        lines.append(line)
        if byteCount > Self.parsedWhole {
            for n in scannedLines..<lines.count { scanner.read(n == 0 ? lines[n] : "\n" + lines[n]) }
            scannedLines = lines.count
            if scanner.isOpen { return nil }
        }
        let text = self.text
        let parsed = Result { () throws(ExpressionError) in try QueryParser.parse(text) }
        if case .failure(let error) = parsed, error.kind == .incomplete { return nil }
        cancel()
        return Statement(text: text, parsed: parsed)
    }

    /// What is left at the end of the input, or after an empty line (parsed when it runs).
    mutating func finish() -> Statement? {
        defer { cancel() }
        return lines.isEmpty ? nil : Statement(text: text, parsed: Result { () throws(ExpressionError) in try QueryParser.parse(text) })
    }

    mutating func cancel() {
        lines = []
        byteCount = 0
        scanner = StatementScanner()
        scannedLines = 0
    }

    /// `text` without the white space around it (Foundation's `trimmingCharacters` was a tenth of a
    /// script's time).
    static func trimmed(_ text: String) -> Substring {
        let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isWhitespace }.map(text.index(after:)) ?? start
        return text[start..<max(start, end)]
    }
}
