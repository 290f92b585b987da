import Foundation
import Testing

/// What a table writes where no terminal shortens it (a pipe, a file, `.output`), and the CSV a
/// spreadsheet may open: every value whole, ids whole, columns aligned by display width.
@Suite struct TableOutputTests {
    /// `vein query … > report.txt` lost every value past 40 characters and every id of a to-many.
    @Test func aTableToAPipeKeepsEveryValueWhole() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let title = (1...12).map { "word\($0)" }.joined(separator: " ")  // 71 characters
        let post = try #require(try r.query("insert Post(title: \"\(title)\", content: \"c\")").stdout.split(separator: " ").last)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var attachments: [String] = []
        for name in ["a", "b"] {
            let inserted = try r.query("insert Attachment(name: \"\(name)\", fileType: .png, sizeMiB: 1, post: #id(\"\(post)\"))")
            attachments.append(String(try #require(inserted.stdout.split(separator: "\n").first?.split(separator: " ").last)))
        }
        let table = try r.query("Post")
        #expect(table.status == 0)
        // The title runs past its column (40 wide), so the rest of its line moves right; nothing is cut.
        let header = "_id" + String(repeating: " ", count: 25) + "title" + String(repeating: " ", count: 37) + "content  views  publishedAt  attachments"
        #expect(table.stdout == header + "\n" + "\(post)  \(title)  c  0  nil  [\(attachments.joined(separator: ", "))]\n")
        #expect(table.stderr == "(1 row)\n")
        let lines = try r.query("Post", ["--format", "line"])
        #expect(lines.stdout.contains("      title = \(title)\n") && lines.stdout.hasSuffix("attachments = [\(attachments.joined(separator: ", "))]\n"))
    }

    /// Columns line up by display width: 日本語 takes six columns, as six ASCII letters do.
    @Test func wideCharactersAlignByDisplayWidth() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "日本語", content: "wide")"#).status == 0)
        #expect(try r.query(#"insert Post(title: "abcdef", content: "narrow")"#).status == 0)
        let table = try r.query("Post sort content")
        let rows = table.stdout.split(separator: "\n").map { String($0.dropFirst(28)) }
        #expect(rows == ["title   content  views  publishedAt  attachments", "abcdef  narrow   0      nil          []",
                         "日本語  wide     0      nil          []"])
    }

    /// A bidi override would show "invoice‮fdp.exe" as "invoiceexe.pdf": shown escaped, in a table and in a
    /// write's summary; JSON and CSV keep the value itself.
    @Test func bidiAndInvisibleCharactersAreShownEscaped() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "invoice\u{202E}fdp.exe", content: "a\u{200B}b\u{2028}c \u{FEFF}👩‍💻")"#).status == 0)
        let table = try r.query("Post")
        #expect(table.stdout.contains(#"  invoice\u{202E}fdp.exe  a\u{200B}b\u{2028}c \u{FEFF}👩‍💻  0"#), "\(table.stdout)")
        let csv = try r.query("Post", ["--format", "csv"])
        #expect(csv.stdout.contains(",invoice\u{202E}fdp.exe,"))
    }

    /// Messages quote what a file held: an escape sequence or a bidi control in it is shown escaped, in
    /// errors as in results, and a caret still points at its column.
    @Test func messagesShowControlAndFormatCharactersEscaped() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        try r.write("bad.jsonl", #"{"vein":1,"app":"com.example.blog","schemaVersion":"0.0.1"}"# + "\n"
                    + #"{"model":"Po\u001b[2Jst\u202e","record":{}}"# + "\n")
        let imported = try r.vein(["import", "b.vein", "bad.jsonl", "--key-file", "k"])
        #expect(imported.status == 65)
        #expect(imported.stderr == """
            vein: error: import from bad.jsonl refused; nothing was written
            vein: error:   line 2: unknown model "Po\\u{1B}[2Jst\\u{202E}"

            """)
        let query = try r.query("Post where title == \"\u{202E}日本\" && foo")
        #expect(query.status == 65)
        // The caret stands under foo: 29 columns of text and escape, 4 of 日本, 5 more.
        #expect(query.stderr == "vein: error: no field 'foo' in Post\n  Post where title == \"\\u{202E}日本\" && foo\n  "
                + String(repeating: " ", count: 38) + "^\n")
    }

    /// `--csv-safe` writes text that a spreadsheet would run as a formula with a leading ', numbers as
    /// they are; without it CSV holds the values unchanged.
    @Test func csvSafeGuardsFormulas() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        #expect(try r.query(#"insert Post(title: "=HYPERLINK(\"http://x\",\"y\")", content: "-2+3", views: -5)"#).status == 0)
        let safe = try r.query("Post", ["--format", "csv", "--csv-safe"])
        #expect(safe.status == 0)
        let row = try #require(safe.stdout.split(separator: "\n").last).split(separator: ",", maxSplits: 1).last
        #expect(row == #""'=HYPERLINK(""http://x"",""y"")",'-2+3,-5,,[]"#)
        let plain = try r.query("Post", ["--format", "csv"])
        #expect(plain.stdout.hasSuffix(#","=HYPERLINK(""http://x"",""y"")",-2+3,-5,,[]"# + "\n"))
        let misplaced = try r.query("Post", ["--csv-safe"])
        #expect(misplaced.status == 64 && misplaced.stderr == "vein: error: --csv-safe applies to --format csv only\n")
        // The REPL's csv mode takes --safe.
        let repl = try r.vein(["repl", "b.vein", "--key-file", "k"], stdin: ".mode csv --safe\nPost\n.mode\n.mode csv\nPost\n.mode json --safe\n")
        let lines = repl.stdout.split(separator: "\n")
        #expect(lines.count == 4 && lines[1].hasSuffix(#""'=HYPERLINK(""http://x"",""y"")",'-2+3,-5,,[]"#)
                && lines[3].hasSuffix(#""=HYPERLINK(""http://x"",""y"")",-2+3,-5,,[]"#), "\(repl.stdout)")
        #expect(repl.stderr.hasPrefix("mode: csv --safe\n"))
        #expect(repl.status == 65 && repl.stderr.hasSuffix("""
            vein: error: line 6: '--safe' is not an option of .mode json
            hint: usage: .mode table|json|jsonl|csv [--safe]|line

            """))
    }

    /// Raw SQL's blob: whole where nothing is shortened (what the person asked for, written straight from
    /// the bytes), and in JSON.
    @Test func aBlobIsWrittenWholeToAPipe() throws {
        let r = try VeinRunner.blogStore()
        defer { r.cleanUp() }
        let result = try r.vein(["repl", "b.vein", "--key-file", "k"], stdin: ".sql SELECT zeroblob(100000) AS b, x'0aff' AS c\n")
        #expect(result.status == 0)
        #expect(result.stdout == "b" + String(repeating: " ", count: 41) + "c\nx'" + String(repeating: "0", count: 200_000) + "'  x'0aff'\n")
        #expect(result.stderr == "(1 row)\n")
    }
}
