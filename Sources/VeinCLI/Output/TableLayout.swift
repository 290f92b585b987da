import Vein

extension ResultFormatter {
    /// The user's widths where set; then, while the line is wider than the limit, the widest column loses
    /// a column (down to `narrowestColumn`), so narrow columns stay whole. Columns in `whole` (ids) never
    /// shrink. Widths are display widths.
    static func fitted(_ natural: [Int], style: Style, whole: Set<Int> = []) -> [Int] {
        var widths = natural.enumerated().map { i, w in
            guard i < style.columnWidths.count, style.columnWidths[i] > 0 else { return w }
            return whole.contains(i) ? max(w, style.columnWidths[i]) : style.columnWidths[i]
        }
        guard let limit = style.width else { return widths }
        let separators = 2 * max(0, widths.count - 1)
        let shrinkable = widths.indices.filter { !whole.contains($0) }
        while widths.reduce(0, +) + separators > limit, let widest = shrinkable.max(by: { widths[$0] < widths[$1] }),
              widths[widest] > narrowestColumn {
            widths[widest] -= 1
        }
        return widths
    }

    /// One line of a table: each cell padded to its column's width. A cell wider than its column (written
    /// whole: no terminal, an id) pushes the rest of its line right, and the next column that can starts at
    /// its place again.
    struct TableLine {
        enum Coloring { case plain, header, values }
        let widths: [Int]
        /// The terminal's width: a line is never longer (the terminal would wrap it).
        let limit: Int?
        /// Per column, whether cells are cut to its width: on a terminal all, elsewhere only the columns
        /// whose width the user set (`.width`).
        let cut: [Bool]

        init(widths: [Int], limit: Int?, cut: [Bool]? = nil) {
            self.widths = widths
            self.limit = limit
            self.cut = cut ?? widths.map { _ in true }
        }

        func render(_ cells: [TableCell], style: Coloring) -> String {
            var shown = 0, start = 0
            var text = ""
            // Past the last column's start a line's width decides nothing: a long value is measured up to it.
            let measured = (limit ?? 0) + widths.reduce(2 * widths.count, +)
            for (i, cell) in cells.enumerated() {
                let value = cell.text(within: cut[i] ? widths[i] : nil)
                let width = DisplayWidth.of(value, upTo: measured)
                let gap = i == 0 ? 0 : max(2, start - shown)
                start += widths[i] + 2
                // The backstop for columns that cannot shrink further: the line ends at the limit, with a
                // cell cut to what is left, or "…" where a cell (an id) cannot be cut.
                if let limit, shown + gap + width > limit, i > 0 || !cell.isWhole {
                    let room = limit - shown - gap
                    if room >= 1, !cell.isWhole {
                        text += String(repeating: " ", count: gap) + colored(DisplayWidth.fitted(value, width: room), cell, style)
                    } else {
                        text += shown + 2 <= limit ? " …" : shown < limit ? "…" : ""
                    }
                    return trimmed(text)
                }
                text += String(repeating: " ", count: gap) + colored(value, cell, style)
                shown += gap + width
            }
            return trimmed(text)
        }

        /// Without the spaces at the end (a short last cell's padding), looking at the end only: a line can
        /// hold a value of any length.
        private func trimmed(_ text: String) -> String {
            var text = text
            while text.utf8.last == UInt8(ascii: " ") { text.removeLast() }
            return text
        }

        private func colored(_ text: String, _ cell: TableCell, _ style: Coloring) -> String {
            switch style {
            case .plain: return text
            case .header: return "\u{1B}[1m\(text)\u{1B}[0m"
            case .values: return cell == .null ? "\u{1B}[2m\(text)\u{1B}[0m" : text
            }
        }
    }
}
