extension String {
    /// The text with control characters written as Swift writes them (`\n`, `\t`, `\r`, `\u{1B}`), for
    /// showing a stored value to a person: shown, never obeyed. Raw, an ESC sequence in a title would
    /// retitle or repaint the terminal and a newline would break a table. C0, DEL and C1 are escaped;
    /// everything else is kept as it is.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.isControlCharacter: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F).
    var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
