import Foundation
import Vein

/// Gathers input lines into statements: a line that leaves a statement incomplete (an open bracket or
/// string, a trailing operator: the parser's `.incomplete` kind) waits for the next. Dot-commands and the
/// session words are one line; an empty line ends a statement that is still open, so its error shows.
struct StatementAccumulator {
    private(set) var lines: [String] = []

    var isEmpty: Bool { lines.isEmpty }
    var text: String { lines.joined(separator: "\n") }

    static let sessionWords: Set<String> = ["changes", "save", "rollback"]

    /// The complete statement this line finishes, or nil when more lines are needed or the line is empty
    /// (or a `//` comment).
    mutating func add(_ line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if lines.isEmpty {
            if trimmed.isEmpty || trimmed.hasPrefix("//") { return nil }
            if trimmed.hasPrefix(".") || Self.sessionWords.contains(trimmed) { return trimmed }
        } else if trimmed.isEmpty {
            return finish()
        }
        lines.append(line)
        if case .failure(let error) = Result(catching: { try QueryParser.parse(text) }),
           (error as? ExpressionError)?.kind == .incomplete {
            return nil
        }
        return finish()
    }

    /// What is left at the end of the input, or after an empty line.
    mutating func finish() -> String? {
        defer { lines = [] }
        return lines.isEmpty ? nil : text
    }

    mutating func cancel() { lines = [] }
}
