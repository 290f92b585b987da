/// A mistake in an expression, pointing at the column where it is (0-based offset into the source).
///
/// Rendered as the spec shows: the message, then the expression with a caret under the offending
/// column, so a person sees at once where to look.
public struct ExpressionError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    /// Offset in characters (not bytes) into `source`.
    public let column: Int
    public let source: String

    public init(_ message: String, column: Int, source: String) {
        self.message = message
        self.column = column
        self.source = source
    }

    /// `message`, the source line, and a caret under `column`.
    public var rendered: String {
        "\(message)\n  \(source)\n  \(String(repeating: " ", count: max(0, column)))^"
    }

    public var description: String { rendered }
}
