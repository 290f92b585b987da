import Foundation
import Testing
@testable import VeinCLI
@testable import Vein

/// Tables fitted to the terminal, and where history goes.
@Suite struct ReplOutputTests {
    @Test func theWidestColumnsShrinkFirst() {
        let style = ResultFormatter.Style(width: 50)
        // 26 + 40 + 10 and two separators of 2 = 80: 30 characters come off the widest columns, the narrow
        // one stays whole.
        #expect(ResultFormatter.fitted([26, 40, 10], style: style) == [18, 18, 10])
        // Then every column in turn, down to three characters each.
        #expect(ResultFormatter.fitted([26, 40, 10], style: ResultFormatter.Style(width: 30)) == [8, 9, 9])
        #expect(ResultFormatter.fitted([26, 40, 10], style: ResultFormatter.Style(width: 5)) == [3, 3, 3])
        #expect(ResultFormatter.fitted([26, 40, 10], style: ResultFormatter.Style(width: nil)) == [26, 40, 10])
        // Widths the user set stand, and still fit.
        #expect(ResultFormatter.fitted([26, 40, 10], style: ResultFormatter.Style(width: nil, columnWidths: [0, 5])) == [26, 5, 10])
    }

    @Test func aLineNeverPassesTheWidth() {
        let line = ResultFormatter.TableLine(widths: [3, 3, 3], limit: 10)
        let rendered = line.render([.text("abcdef"), .text("ghijkl"), .text("mnopqr")], style: .plain)
        #expect(rendered == "ab…  gh… …")
        #expect(rendered.count <= 10)
        // Where an id would have to be cut, the line ends instead.
        let ids = ResultFormatter.TableLine(widths: [3, 26], limit: 20)
        #expect(ids.render([.text("abcdef"), .id("01J00000000000000000000001")], style: .plain) == "ab… …")
        // An id that starts a line is whole even past the limit (the terminal wraps it).
        let narrow = ResultFormatter.TableLine(widths: [26, 3], limit: 20)
        #expect(narrow.render([.id("01J00000000000000000000001"), .text("x")], style: .plain) == "01J00000000000000000000001")
    }

    /// Ids are the values people copy: their columns never shrink, whatever the terminal or `.width`.
    @Test func idColumnsNeverShrink() {
        #expect(ResultFormatter.fitted([26, 40, 10], style: ResultFormatter.Style(width: 50), whole: [0]) == [26, 10, 10])
        #expect(ResultFormatter.fitted([26, 40, 10], style: ResultFormatter.Style(width: 20), whole: [0]) == [26, 3, 3])
        #expect(ResultFormatter.fitted([26, 40], style: ResultFormatter.Style(width: nil, columnWidths: [4, 4]), whole: [0]) == [26, 4])
    }

    /// Widths are display widths: a CJK title takes two columns a character, and is cut on a whole one.
    @Test func wideCharactersAlignByTheirColumns() {
        let line = ResultFormatter.TableLine(widths: [6, 3], limit: 40)
        #expect(line.render([.text("日本語"), .text("x")], style: .plain) == "日本語  x")
        #expect(line.render([.text("ab"), .text("x")], style: .plain) == "ab      x")
        // Cut on a whole character: "日本…" takes five columns of the six, and x stays in its place.
        #expect(line.render([.text("日本語です"), .text("x")], style: .plain) == "日本…   x")
    }

    /// Each kind of value is shortened its own way, and only when a width is given.
    @Test func cellsShortenByKind() {
        let ids = ["01J00000000000000000000001", "01J00000000000000000000002", "01J00000000000000000000003"]
        #expect(TableCell.ids(ids).text(within: nil) == "[\(ids.joined(separator: ", "))]")
        #expect(TableCell.ids(ids).text(within: 40) == "[01J00000000000000000000001, … 2 more]")
        #expect(TableCell.ids(ids).text(within: 20) == "[3 ids]")
        #expect(TableCell.ids(Array(ids.prefix(1))).text(within: 20) == "[1 id]")
        #expect(TableCell.ids([]).text(within: 20) == "[]")
        #expect(TableCell.id(ids[0]).text(within: 5) == ids[0])
        let blob = TableCell.blob(Data(repeating: 0xab, count: 1_000_000))
        #expect(blob.text(within: 10) == "x'abababa…")
        #expect(blob.text(within: nil).count == 2_000_003)
        #expect(TableCell.blob(Data([1, 2])).text(within: 10) == "x'0102'")
        #expect(TableCell.text("a\u{202E}b").text(within: nil) == #"a\u{202E}b"#)
        #expect(TableCell.null.text(within: 2) == "n…")
    }

    /// `--csv-safe`: text a spreadsheet would run as a formula is written as text; numbers stay numbers.
    @Test func csvSafeGuardsFormulas() {
        for formula in ["=1+2", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"] {
            #expect(CSVField.write(formula, safe: true).hasPrefix("'") || CSVField.write(formula, safe: true).hasPrefix("\"'"), "\(formula)")
        }
        #expect(CSVField.write("=HYPERLINK(\"x\",\"y\")", safe: true) == #""'=HYPERLINK(""x"",""y"")""#)
        #expect(CSVField.write("=1+2") == "=1+2")
        #expect(CSVField.write("plain", safe: true) == "plain")
        // A CR LF inside a value is one Character in Swift: it is quoted too.
        #expect(CSVField.write("a\r\nb") == "\"a\r\nb\"")
    }

    /// Past a screenful, changes are summarised by kind and model, with the first ids whole.
    @Test func manyChangesAreSummarised() throws {
        let ids = (1...131).map { String(format: "01J%023d", $0) }
        var changes = ids.map { ObjectContext.Change(kind: .update, model: "Post", id: $0, fields: ["views"]) }
        changes[0] = ObjectContext.Change(kind: .update, model: "Post", id: ids[0], fields: ["title", "views"])
        changes.append(ObjectContext.Change(kind: .delete, model: "Tag", id: ids[0], fields: []))
        #expect(ChangeSummary.lines(changes) == [
            "updated 131 Post rows (title 1, views 131): \(ids[0]), \(ids[1]), \(ids[2]), … 128 more",
            "deleted 1 Tag row: \(ids[0])",
        ])
        var lines: [String] = []
        #expect(try ResultFormatter.write(changes, format: .table, summarizingPast: 200) { lines.append($0) } == false)
        #expect(lines.count == 132 && lines[1] == "updated Post \(ids[1]) (views)")
    }

    @Test func historyGoesToDiskOnlyForPlaintextStoresUnlessNamed() {
        let home = ["HOME": "/home/u"]
        #expect(HistoryPolicy.file(explicit: nil, encrypted: true, environment: home) == nil)
        #expect(HistoryPolicy.file(explicit: nil, encrypted: true, environment: home.merging(["VEIN_HISTORY": "/tmp/h"]) { $1 }) == nil)
        #expect(HistoryPolicy.file(explicit: "/tmp/h", encrypted: true, environment: home) == .init(path: "/tmp/h", named: true))
        #expect(HistoryPolicy.file(explicit: nil, encrypted: false, environment: home) == .init(path: "/home/u/.vein_history", named: false))
        #expect(HistoryPolicy.file(explicit: nil, encrypted: false, environment: home.merging(["VEIN_HISTORY": ""]) { $1 }) == nil)
        #expect(HistoryPolicy.file(explicit: nil, encrypted: false, environment: home.merging(["VEIN_HISTORY": "/tmp/h"]) { $1 })
                == .init(path: "/tmp/h", named: true))
    }
}
