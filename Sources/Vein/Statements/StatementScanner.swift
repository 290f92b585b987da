/// Follows a statement line by line at the cost of reading it once: whether a string is open (`"…`, a raw
/// `#"…`) or a bracket is, the cases where the statement is certainly incomplete whatever its parse would
/// say first. A reader of a long statement asks it before parsing the whole text again for every line,
/// which cost the square of the statement's lines (and a parse holds several bytes per character: an
/// unterminated string poured in 1 MiB lines reached a gigabyte).
///
/// It follows the lexer's rules for strings (`ExpressionLexer.string`): a string opened with n `#` ends at
/// a quote followed by n `#`, and a backslash followed by n `#` escapes the next character.
package struct StatementScanner {
    /// The `#` count of the string open, nil outside strings.
    private var openString: Int?
    /// Brackets open outside strings; negative once one closed that was never opened.
    private var depth = 0
    /// A backslash (with its `#`) was the last thing read inside a string: the next character is escaped.
    private var escaping = false

    package init() {}

    /// Whether what was read so far is certainly incomplete: a string or a bracket is open.
    package var isOpen: Bool { openString != nil || depth > 0 }

    /// Reads `text` (a line, and the line break before it after the first).
    package mutating func read(_ text: String) {
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func hashes(at start: Int, _ count: Int) -> Bool {
            start + count <= scalars.count && scalars[start..<start + count].allSatisfy { $0 == "#" }
        }
        while i < scalars.count {
            let c = scalars[i]
            i += 1
            if let opened = openString {
                if escaping {
                    escaping = false
                } else if c == "\"", hashes(at: i, opened) {
                    i += opened
                    openString = nil
                } else if c == "\\", hashes(at: i, opened) {
                    i += opened
                    escaping = true
                }
                continue
            }
            switch c {
            case "\"": openString = 0
            case "#":
                var count = 1
                while i < scalars.count, scalars[i] == "#" { count += 1; i += 1 }
                if i < scalars.count, scalars[i] == "\"" {
                    i += 1
                    openString = count
                }
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth -= 1
            default: break
            }
        }
    }
}
