import Foundation
import Testing
@testable import Vein

/// Text as a terminal shows it: how many columns it takes, how it is cut to a width, and which characters
/// are written as escapes instead of obeyed.
@Suite struct DisplayTextTests {
    @Test func wideCharactersAndEmojiTakeTwoColumnsAndMarksNone() {
        #expect(DisplayWidth.of("title") == 5)
        #expect(DisplayWidth.of("日本語") == 6)
        #expect(DisplayWidth.of("ｶﾀｶﾅ") == 4)  // halfwidth katakana: one each
        #expect(DisplayWidth.of("Ａ") == 2)  // fullwidth
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("\u{1100}\u{1161}\u{11A8}") == 2)  // a syllable of conjoining jamo
        #expect(DisplayWidth.of("e\u{301}") == 1)  // é as e and a combining acute
        #expect(DisplayWidth.of("\u{301}") == 0)
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👩‍💻") == 2)  // a ZWJ sequence is one glyph
        #expect(DisplayWidth.of("👍🏽") == 2)  // with a skin tone modifier
        #expect(DisplayWidth.of("🇯🇵") == 2)  // a flag
        #expect(DisplayWidth.of("❤️") == 2 && DisplayWidth.of("❤") == 1)  // U+FE0F asks for the emoji
        #expect(DisplayWidth.of("1️⃣") == 2)  // a keycap
        #expect(DisplayWidth.of("\u{200B}") == 0)
        #expect(DisplayWidth.of("a\tb") == 2)
        #expect(DisplayWidth.of("\u{20000}") == 2)  // CJK extension B
        #expect(DisplayWidth.of("🫠") == 2)  // an emoji newer than the width table
    }

    @Test func fittingCutsAtADisplayWidthAndMarksTheCut() {
        #expect(DisplayWidth.fitted("日本語のテキスト", width: 7) == "日本語…")
        #expect(DisplayWidth.fitted("日本語のテキスト", width: 8) == "日本語…")
        #expect(DisplayWidth.fitted("日本語", width: 6) == "日本語")
        #expect(DisplayWidth.fitted("abcdef", width: 4) == "abc…")
        #expect(DisplayWidth.fitted("abcd", width: 4) == "abcd")
        #expect(DisplayWidth.fitted("ab", width: 1) == "…")
        #expect(DisplayWidth.fitted("ab", width: 0) == "")
        // A whole cluster or nothing: the family emoji is never split into its people.
        #expect(DisplayWidth.fitted("a👨‍👩‍👧", width: 3) == "a👨‍👩‍👧")
        #expect(DisplayWidth.fitted("a👨‍👩‍👧b", width: 3) == "a…")
        #expect(DisplayWidth.fitted("ab👨‍👩‍👧", width: 3) == "ab…")
        // The escapes count as what is shown.
        #expect(DisplayWidth.fitted("a\nbcdef", width: 5, shown: \.escapingControlCharacters) == #"a\nb…"#)
    }

    /// Fitting reads only the part that is shown: a cell ten times longer costs no more.
    @Test func fittingLooksOnlyAtWhatItShows() {
        var calls = 0
        let long = String(repeating: "x", count: 100_000)
        _ = DisplayWidth.fitted(long, width: 40) { calls += 1; return String($0) }
        #expect(calls == 41)
        #expect(DisplayWidth.of(String(repeating: "日", count: 100_000), upTo: 50) == 50)
        #expect(DisplayWidth.of("日本", upTo: 50) == 4)
    }

    /// An expression's caret counts display columns: after 日本語 it moves six, after an escape as many as
    /// the escape shows.
    @Test func aCaretCountsDisplayColumns() {
        let source = "title == \"日本語\u{202E}\" && foo"
        let error = ExpressionError("no field 'foo'", column: source.count - 3, source: source)
        #expect(error.rendered == "no field 'foo'\n  title == \"日本語\\u{202E}\" && foo\n" + "  " + String(repeating: " ", count: 29) + "^")
    }

    @Test func controlAndFormatCharactersAreEscaped() {
        #expect("plain text, 日本語".escapingControlCharacters == "plain text, 日本語")
        #expect("a\u{1B}[2Jb\n\t\u{7F}\u{9B}".escapingControlCharacters == #"a\u{1B}[2Jb\n\t\u{7F}\u{9B}"#)
        // Bidi controls would show "exe.txt" as "txt.exe"; invisible characters would hide text.
        #expect("invoice\u{202E}txt.exe".escapingControlCharacters == #"invoice\u{202E}txt.exe"#)
        #expect("\u{2066}a\u{2067}b\u{2068}c\u{2069}".escapingControlCharacters == #"\u{2066}a\u{2067}b\u{2068}c\u{2069}"#)
        #expect("\u{FEFF}id".escapingControlCharacters == #"\u{FEFF}id"#)
        #expect("a\u{2028}b\u{2029}c".escapingControlCharacters == #"a\u{2028}b\u{2029}c"#)
        #expect("pay\u{200B}pal".escapingControlCharacters == #"pay\u{200B}pal"#)
        #expect("\u{200E}x\u{AD}".escapingControlCharacters == #"\u{200E}x\u{AD}"#)
        #expect("\r\n".escapingControlCharacters == #"\r\n"#)
    }

    /// A joiner inside an emoji or a script that needs it draws the glyph and hides nothing: kept. After
    /// ASCII, alone, or as tags outside a flag, it only hides: escaped.
    @Test func joinersThatDrawAGlyphAreKept() {
        let coder = "👩\u{200D}💻", rainbow = "🏳️\u{200D}🌈", persian = "می\u{200C}خواهم", hindi = "क्\u{200D}ष"
        for text in [coder, rainbow, persian, hindi, "❤️", "1️⃣", "☺\u{FE0E}"] {
            #expect(text.escapingControlCharacters == text, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        #expect(scotland.escapingControlCharacters == scotland)
        #expect("admin\u{200D}".escapingControlCharacters == #"admin\u{200D}"#)
        #expect("a\u{200C}b".escapingControlCharacters == #"a\u{200C}b"#)
        #expect("\u{200D}x".escapingControlCharacters == #"\u{200D}x"#)
        #expect("ok\u{E0041}\u{E0042}".escapingControlCharacters == #"ok\u{E0041}\u{E0042}"#)
        #expect("👍\u{E0041}".escapingControlCharacters == #"👍\u{E0041}"#)
        // A joiner after an escaped character is escaped with it.
        #expect("\u{202E}\u{200D}".escapingControlCharacters == #"\u{202E}\u{200D}"#)
    }
}
