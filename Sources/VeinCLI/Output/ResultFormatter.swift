import Foundation
import Vein

/// Prints query results as table (aligned, fitted to the terminal width), json, jsonl, csv or line
/// (`field = value` per row). Every format but json is written a line at a time as it is formatted, so a
/// long result is never held whole as text (the REPL streams it to a pager).
enum ResultFormatter {
    enum Format: String, CaseIterable {
        case table, json, jsonl, csv, line
    }

    /// How a table is laid out.
    struct Style {
        /// The width to fit lines to (the terminal's), or nil for none.
        var width: Int?
        var headers = true
        /// Widths the user set (`.width` in the REPL), by column; 0 or missing means fitted.
        var columnWidths: [Int] = []
        /// Bold headers and dim nil (a terminal, no NO_COLOR).
        var color = false
        /// Widths from this many rows at most, so the first lines reach a pager at once (longer cells
        /// further down are shortened); nil: from every row.
        var widthSample: Int?
    }

    /// A line writer: the console, a file, a pager. It throws to stop the output (a pager that quit).
    typealias Emit = (String) throws -> Void

    static let widestCell = 40
    static let narrowestColumn = 3

    static func header(_ model: ModelSchema) -> [String] { ["id"] + model.columnNames }

    static func print(_ objects: [ModelObject], model: ModelSchema, format: Format, console: Console) throws {
        try write(objects, model: model, format: format, style: Style(width: terminalWidth(console)),
                  emit: { console.out($0) }, note: console.note)
    }

    static func write(_ objects: [ModelObject], model: ModelSchema, format: Format, style: Style,
                      emit: Emit, note: (String) -> Void) throws {
        let header = header(model)
        try write(Rows(header: header, count: objects.count, json: { try objects[$0].jsonObject() }),
                  format: format, style: style, emit: emit, note: note)
    }

    /// Raw SQL results (the REPL's `.sql`): columns as SQLite names them, values as JSON gives them.
    static func write(columns: [String], rows: [[DatabaseValue]], format: Format, style: Style,
                      emit: Emit, note: (String) -> Void) throws {
        func json(_ value: DatabaseValue) -> JSONValue {
            switch value {
            case .null: return .null
            case .integer(let v): return .int(v)
            case .real(let v): return .double(v)
            case .text(let v): return .string(v)
            case .blob(let v): return .string("x'" + v.map { String(format: "%02x", $0) }.joined() + "'")
            }
        }
        try write(Rows(header: columns, count: rows.count, json: { JSONObject(zip(columns, rows[$0].map(json)).map { ($0, $1) }) }),
                  format: format, style: style, emit: emit, note: note)
    }

    /// A result read a row at a time by index, so each format makes one row's text when it writes it.
    struct Rows {
        let header: [String]
        let count: Int
        let json: (Int) throws -> JSONObject

        func cells(_ index: Int, forCSV: Bool) throws -> [String] {
            let row = try json(index)
            return header.map { cell(row[$0] ?? .null, forCSV: forCSV) }
        }
    }

    static func write(_ rows: Rows, format: Format, style: Style, emit: Emit, note: (String) -> Void) throws {
        let header = rows.header, indices = 0..<rows.count
        switch format {
        case .json:
            try emit(JSONWriter.string(.array(try indices.map { .object(try rows.json($0)) }), pretty: true))
        case .jsonl:
            for i in indices { try emit(JSONWriter.string(.object(try rows.json(i)))) }
        case .csv:
            if style.headers { try emit(header.map(csvField).joined(separator: ",")) }
            for i in indices { try emit(try rows.cells(i, forCSV: true).map(csvField).joined(separator: ",")) }
        case .line:
            let nameWidth = header.map(\.count).max() ?? 0
            for i in indices {
                if i > 0 { try emit("") }
                for (name, value) in zip(header, try rows.cells(i, forCSV: false)) {
                    try emit(String(repeating: " ", count: nameWidth - name.count) + name + " = " + value)
                }
            }
        case .table:
            // Two passes: the widths first (each row's text made and dropped), then the lines.
            var widths = header.map(\.count)
            for i in indices.prefix(style.widthSample ?? rows.count) {
                for (column, c) in try rows.cells(i, forCSV: false).enumerated() { widths[column] = max(widths[column], min(c.count, widestCell)) }
            }
            widths = fitted(widths, style: style)
            let table = TableLine(widths: widths, limit: style.width)
            if style.headers { try emit(table.render(header, style: style.color ? .header : .plain)) }
            for i in indices { try emit(table.render(try rows.cells(i, forCSV: false), style: style.color ? .values : .plain)) }
            note("(\(rows.count) \(rows.count == 1 ? "row" : "rows"))")
        }
    }

    /// A count: the number, or `{"count":N}` in the JSON formats.
    static func count(_ n: Int, format: Format) -> String {
        format == .json || format == .jsonl ? JSONWriter.string(.object(JSONObject([("count", .int(Int64(n)))]))) : String(n)
    }

    /// The user's widths where set; then, while the line is wider than the limit, the widest column loses
    /// a character (down to `narrowestColumn`), so narrow columns stay whole.
    static func fitted(_ natural: [Int], style: Style) -> [Int] {
        var widths = natural.enumerated().map { i, w in i < style.columnWidths.count && style.columnWidths[i] > 0 ? style.columnWidths[i] : w }
        guard let limit = style.width else { return widths }
        let separators = 2 * max(0, widths.count - 1)
        while widths.reduce(0, +) + separators > limit, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
              widths[widest] > narrowestColumn {
            widths[widest] -= 1
        }
        return widths
    }

    struct TableLine {
        enum Coloring { case plain, header, values }
        let widths: [Int]
        let limit: Int?

        func render(_ line: [String], style: Coloring) -> String {
            var shown = 0
            var text = ""
            for (i, c) in line.enumerated() {
                let clipped = c.count > widths[i] ? String(c.prefix(max(0, widths[i] - 1))) + "…" : c
                var padded = clipped.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                if i == line.count - 1 { padded = String(padded.reversed().drop { $0 == " " }.reversed()) }
                let separator = i == 0 ? "" : "  "
                // The backstop for columns that cannot shrink further: the line is cut at the limit.
                if let limit, shown + separator.count + padded.count > limit {
                    let room = limit - shown - separator.count - 1
                    if room >= 0 {
                        text += separator + colored(String(padded.prefix(room)), raw: c, style) + "…"
                    } else {
                        text += shown + 2 <= limit ? " …" : shown < limit ? "…" : ""
                    }
                    return String(text.reversed().drop { $0 == " " }.reversed())
                }
                shown += separator.count + padded.count
                text += separator + colored(padded, raw: c, style)
            }
            return String(text.reversed().drop { $0 == " " }.reversed())
        }

        private func colored(_ text: String, raw: String, _ style: Coloring) -> String {
            switch style {
            case .plain: return text
            case .header: return "\u{1B}[1m\(text)\u{1B}[0m"
            case .values: return raw == "nil" ? "\u{1B}[2m\(text)\u{1B}[0m" : text
            }
        }
    }

    /// A cell as text: strings as they are (control characters escaped in a table), nil as "nil", arrays
    /// of ids counted.
    static func cell(_ value: JSONValue, forCSV: Bool) -> String {
        switch value {
        case .null: return forCSV ? "" : "nil"
        case .string(let s): return forCSV ? s : s.escapingControlCharacters
        case .array(let items) where !forCSV: return items.isEmpty ? "[]" : "[\(items.count) ids]"
        default: return JSONWriter.string(value)
        }
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The width to cut table lines to: the terminal's when standard output is one, else none.
    static func terminalWidth(_ console: Console) -> Int? {
        guard console.stdoutIsTerminal else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(console.environment["COLUMNS"] ?? "")
    }

    static func print(_ changes: [ModelContext.Change], format: Format, console: Console) {
        try? write(changes, format: format, emit: { console.out($0) })
    }

    static func write(_ changes: [ModelContext.Change], format: Format, emit: Emit) throws {
        let json: [JSONValue] = changes.map { c in
            .object(JSONObject([("change", .string(c.kind.rawValue)), ("model", .string(c.model)), ("id", .string(c.id)),
                                ("fields", .array(c.fields.map(JSONValue.string)))]))
        }
        switch format {
        case .json: try emit(JSONWriter.string(.array(json), pretty: true))
        case .jsonl: for j in json { try emit(JSONWriter.string(j)) }
        case .csv:
            try emit("change,model,id,fields")
            for c in changes { try emit([c.kind.rawValue, c.model, c.id, c.fields.joined(separator: " ")].map(csvField).joined(separator: ",")) }
        case .table, .line:
            for c in changes {
                let verb = ["insert": "inserted", "update": "updated", "delete": "deleted"][c.kind.rawValue]!
                try emit("\(verb) \(c.model) \(c.id.escapingControlCharacters)" + (c.fields.isEmpty ? "" : " (\(c.fields.joined(separator: ", ")))"))
            }
        }
    }
}
