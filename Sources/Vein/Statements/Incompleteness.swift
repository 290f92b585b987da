/// Tells a statement that more lines could complete from one that is wrong, for readers that take a
/// statement over several lines (the REPL, a script): an error met at the end of the input is
/// "incomplete" when a bracket is still open or the input ends in an operator or a clause keyword that
/// needs what follows. The lexer marks an unterminated string itself.
enum Incompleteness {
    static let openers: [String: String] = ["(": ")", "[": "]", "{": "}"]
    /// Tokens after which a statement cannot end.
    static let trailingSymbols: Set<String> = ["==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "+", "-", "*", "/", "%",
                                                "??", "?.", ".", ",", ":", "=", "?"]
    static let trailingWords: Set<String> = ["where", "sort", "set", "limit", "offset"]

    static func classify(_ error: ExpressionError, tokens: [Token]) -> ExpressionError {
        guard error.kind == .wrong, let end = tokens.last, end.kind == .end, error.column >= end.column else { return error }
        var open: [String] = []
        for token in tokens {
            guard case .symbol(let s) = token.kind else { continue }
            if let closer = openers[s] { open.append(closer) } else if s == open.last { open.removeLast() }
        }
        let last = tokens.count >= 2 ? tokens[tokens.count - 2].kind : nil
        var trailing = false
        if case .symbol(let s) = last { trailing = trailingSymbols.contains(s) }
        if case .identifier(let w) = last { trailing = trailingWords.contains(w) }
        guard !open.isEmpty || trailing else { return error }
        var incomplete = error
        incomplete.kind = .incomplete
        return incomplete
    }
}
