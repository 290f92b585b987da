import Foundation
import Testing
@testable import VeinCLI

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
        let rendered = line.render(["abcdef", "ghijkl", "mnopqr"], style: .plain)
        #expect(rendered == "ab…  gh… …")
        #expect(rendered.count <= 10)
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
