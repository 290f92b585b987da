extension String {
    /// The text with control and invisible format characters written as Swift writes them (`\n`, `\t`,
    /// `\r`, `\u{1B}`, `\u{202E}`), for showing a stored value to a person: shown, never obeyed. Raw, an ESC
    /// sequence in a title would retitle or repaint the terminal, a newline would break a table, and a bidi
    /// override (U+202E, U+2066–2069) or an invisible character (U+200B, U+FEFF, U+2028) would make a value
    /// read as another one. C0, DEL, C1 and the format and line/paragraph separator characters (Cf, Zl, Zp)
    /// are escaped; everything else is kept, with two exceptions that only draw a glyph (`isKeptJoiner`).
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.mayBeEscaped) else { return self }
        var out = ""
        for character in self { out += character.escapingControlCharacters }
        return out
    }
}

extension Character {
    /// One grapheme cluster as `String.escapingControlCharacters` writes it. The rule is per cluster, so a
    /// cell can be escaped and cut to a width a character at a time.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.mayBeEscaped) else { return String(self) }
        let base = unicodeScalars.first!
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.isControlCharacter || (scalar.isInvisibleFormat && !scalar.isKeptJoiner(after: base)):
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F).
    var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }

    /// Format characters and the line and paragraph separators (Cf, Zl, Zp): drawn as nothing, yet they
    /// reorder (bidi controls), hide (U+200B, U+2060, U+FEFF, tags) or break (U+2028) the text around them.
    var isInvisibleFormat: Bool {
        guard value >= 0xAD else { return false }
        switch properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    var mayBeEscaped: Bool { isControlCharacter || isInvisibleFormat }

    /// The format characters kept as they are, because escaping them would break what a person reads
    /// while keeping them hides nothing:
    /// - a zero-width joiner or non-joiner (U+200D, U+200C) inside a character that starts with a
    ///   non-ASCII scalar: it joins an emoji sequence (👩‍💻) or shapes a script (Persian, Indic conjuncts);
    ///   after ASCII or on its own it only hides, and is escaped;
    /// - a tag character (U+E0020–E007F) after the black flag U+1F3F4, which it makes a subdivision flag
    ///   (🏴󠁧󠁢󠁳󠁣󠁴󠁿); anywhere else tags carry invisible text, and are escaped.
    /// Variation selectors (U+FE0E, U+FE0F) are marks, not format characters, and are always kept.
    func isKeptJoiner(after base: Unicode.Scalar) -> Bool {
        guard base != self else { return false }
        switch value {
        case 0x200C, 0x200D: return base.value >= 0x80 && !base.mayBeEscaped
        case 0xE0020...0xE007F: return base.value == 0x1F3F4
        default: return false
        }
    }
}
