/// A mistake in an expression, pointing at the column where it is (0-based offset into the source).
///
/// Rendered as the spec shows: the message, then the expression with a caret under the offending
/// column, so a person sees at once where to look.
public struct ExpressionError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    /// Offset in characters (not bytes) into `source`.
    public let column: Int
    public let source: String
    /// Whether more input could still make the source right (an open string or bracket, a trailing
    /// operator): a line-based reader then asks for the next line instead of reporting the error.
    public var kind: Kind = .wrong

    public enum Kind: Equatable, Sendable {
        case wrong
        case incomplete
    }

    public init(_ message: String, column: Int, source: String, kind: Kind = .wrong) {
        self.message = message
        self.column = column
        self.source = source
        self.kind = kind
    }

    /// `message`, the source line (control and format characters escaped, as every message shows them),
    /// and a caret under `column`, counted in display columns (a CJK string before it takes two a
    /// character, an escape as many as it shows).
    public var rendered: String {
        let (line, caret) = excerpt
        let before = DisplayWidth.of(String(line.prefix(caret)).escapingControlCharacters)
        return "\(message)\n  \(line.escapingControlCharacters)\n  \(String(repeating: " ", count: before))^"
    }

    /// Characters of a long source shown on each side of the column.
    static let context = 40

    /// The source, or for a long one (a generated condition, say) the part around the column, cut with
    /// "…"; and where the caret goes in it.
    public var excerpt: (text: String, caret: Int) {
        var characters = Array(source), at = max(0, min(column, characters.count))
        // A statement typed over several lines (the REPL, a script): the line the column is in.
        if characters.contains("\n") {
            let start = characters[..<at].lastIndex(of: "\n").map { $0 + 1 } ?? 0
            let end = characters[at...].firstIndex(of: "\n") ?? characters.count
            characters = Array(characters[start..<end])
            at -= start
        }
        guard characters.count > 2 * Self.context + 20 else { return (String(characters), at) }
        let start = max(0, at - Self.context), end = min(characters.count, at + Self.context)
        let head = start > 0 ? "…" : "", tail = end < characters.count ? "…" : ""
        return (head + String(characters[start..<end]) + tail, at - start + head.count)
    }

    public var description: String { rendered }
}
