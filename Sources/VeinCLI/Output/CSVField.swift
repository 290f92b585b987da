/// One field of a CSV line (RFC 4180): quoted when it holds a comma, a quote or a line break.
enum CSVField {
    /// With `safe`, text that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab
    /// or a carriage return) gets a leading `'`, as OWASP's advice on CSV injection has it: the cell then
    /// shows as the text it is. Only for text values: a number such as -5 is written as it is.
    static func write(_ text: String, safe: Bool = false) -> String {
        let text = safe && text.first.map(formulaStarts.contains) == true ? "'" + text : text
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r", "\r\n"]
}
