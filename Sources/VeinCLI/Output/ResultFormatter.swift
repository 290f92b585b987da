import Foundation
import Vein

/// Prints query results as table (aligned; on a terminal fitted to its width), json, jsonl, csv or line
/// (`field = value` per row). Every format but json is written a line at a time as it is formatted, so a
/// long result is never held whole as text (the REPL streams it to a pager). Only a table on a terminal
/// shortens values (`TableCell`); a file or a pipe gets every value whole.
enum ResultFormatter {
    enum Format: String, CaseIterable {
        case table, json, jsonl, csv, line
    }

    /// How a result is laid out.
    struct Style {
        /// The width to fit lines to (the terminal's), or nil for none: then nothing is shortened.
        var width: Int?
        var headers = true
        /// Widths the user set (`.width` in the REPL), by column; 0 or missing means fitted.
        var columnWidths: [Int] = []
        /// Bold headers and dim nil (a terminal, no NO_COLOR).
        var color = false
        /// Widths from this many rows at most, so the first lines reach a pager at once (longer cells
        /// further down are shortened); nil: from every row.
        var widthSample: Int?
        /// CSV cells that start a spreadsheet formula are written as text (`CSVField`).
        var csvSafe = false
    }

    /// A line writer: the console, a file, a pager. It throws to stop the output (a pager that quit).
    typealias Emit = (String) throws -> Void

    /// The widest a column is made from its values: on a terminal its cells are cut to it, elsewhere a
    /// longer value runs past it (so one long value does not pad every line of a file).
    static let widestCell = 40
    static let narrowestColumn = 3

    static func header(_ model: ModelSchema) -> [String] { [StoreFormat.current.keyColumn] + model.columnNames }

    static func print(_ objects: [ModelObject], model: ModelSchema, format: Format, style: Style, console: Console) throws {
        let footer = try write(objects, model: model, format: format, style: style, emit: { console.out($0) })
        footer.map(console.note)
    }

    /// Writes the rows, and returns the footer a table ends with ("(3 rows)"), which the caller writes once
    /// the rows are shown (after the pager has ended).
    static func write(_ objects: [ModelObject], model: ModelSchema, format: Format, style: Style, emit: Emit) throws -> String? {
        let header = header(model)
        // The id, then fields as JSON gives them, then relationships as ids.
        let kinds: [(JSONValue) -> TableCell] = header.map { column in
            guard column != StoreFormat.current.keyColumn else { return { value in value.stringValue.map(TableCell.id) ?? .null } }
            guard let relationship = model.relationship(named: column) else { return TableCell.init(json:) }
            if relationship.isToMany {
                return { value in if case .array(let items) = value { .ids(items.map { $0.stringValue ?? JSONWriter.string($0) }) } else { .null } }
            }
            return { value in value.stringValue.map(TableCell.id) ?? .null }
        }
        return try write(Rows(header: header, count: objects.count, json: { try objects[$0].jsonObject() },
                              cells: { row in let object = try objects[row].jsonObject(); return zip(header, kinds).map { $1(object[$0] ?? .null) } }),
                         format: format, style: style, emit: emit)
    }

    /// Raw SQL results (the REPL's `.sql`): columns as SQLite names them, values as JSON gives them (a blob
    /// as x'…' hex).
    static func write(columns: [String], rows: [[DatabaseValue]], format: Format, style: Style, emit: Emit) throws -> String? {
        func json(_ value: DatabaseValue) -> JSONValue {
            switch value {
            case .null: return .null
            case .integer(let v): return .int(v)
            case .real(let v): return .double(v)
            case .text(let v): return .string(v)
            case .blob(let v): return .string("x'" + Hex.encode(v) + "'")
            }
        }
        func cell(_ value: DatabaseValue) -> TableCell {
            switch value {
            case .blob(let v): return .blob(v)
            case .text(let v): return .text(v)
            default: return TableCell(json: json(value))
            }
        }
        return try write(Rows(header: columns, count: rows.count, json: { JSONObject(zip(columns, rows[$0].map(json)).map { ($0, $1) }) },
                              cells: { rows[$0].map(cell) }),
                         format: format, style: style, emit: emit)
    }

    /// A result read a row at a time by index, so each format makes one row's text when it writes it.
    struct Rows {
        let header: [String]
        let count: Int
        let json: (Int) throws -> JSONObject
        /// The row as a table and the line format show it.
        let cells: (Int) throws -> [TableCell]

        /// The row's CSV fields: each value's text, and whether it is text (what `--csv-safe` guards).
        func csvFields(_ index: Int) throws -> [(text: String, isText: Bool)] {
            let row = try json(index)
            return header.map { column in
                switch row[column] ?? .null {
                case .null: return ("", false)
                case .string(let s): return (s, true)
                case let value: return (JSONWriter.string(value), false)
                }
            }
        }
    }

    static func write(_ rows: Rows, format: Format, style: Style, emit: Emit) throws -> String? {
        let header = rows.header, indices = 0..<rows.count
        switch format {
        case .json:
            try emit(JSONWriter.string(.array(try indices.map { .object(try rows.json($0)) }), pretty: true))
        case .jsonl:
            for i in indices { try emit(JSONWriter.string(.object(try rows.json(i)))) }
        case .csv:
            let field = { (text: String, isText: Bool) in CSVField.write(text, safe: style.csvSafe && isText) }
            if style.headers { try emit(header.map { field($0, true) }.joined(separator: ",")) }
            for i in indices { try emit(try rows.csvFields(i).map(field).joined(separator: ",")) }
        case .line:
            let names = header.map(\.escapingControlCharacters)
            let nameWidth = names.map(DisplayWidth.of).max() ?? 0
            for i in indices {
                if i > 0 { try emit("") }
                for (name, cell) in zip(names, try rows.cells(i)) {
                    try emit(String(repeating: " ", count: nameWidth - DisplayWidth.of(name)) + name + " = " + cell.text(within: nil))
                }
            }
        case .table:
            try writeTable(rows, style: style, emit: emit)
            return "(\(Phrase.rows(rows.count)))"
        }
        return nil
    }

    /// Two passes: the widths first (each row's cells made and dropped, each measured only up to
    /// `widestCell`), then the lines.
    private static func writeTable(_ rows: Rows, style: Style, emit: Emit) throws {
        let headerCells = rows.header.map(TableCell.text)
        var widths = headerCells.map { DisplayWidth.of($0.text(within: nil)) }
        var whole = Set<Int>()
        for i in (0..<rows.count).prefix(style.widthSample ?? rows.count) {
            for (column, cell) in try rows.cells(i).enumerated() {
                if cell.isWhole { whole.insert(column) }
                widths[column] = max(widths[column], DisplayWidth.of(cell.text(within: cell.isWhole ? nil : widestCell)))
            }
        }
        widths = fitted(widths, style: style, whole: whole)
        let cut = widths.indices.map { style.width != nil || ($0 < style.columnWidths.count && style.columnWidths[$0] > 0) }
        let table = TableLine(widths: widths, limit: style.width, cut: cut)
        if style.headers { try emit(table.render(headerCells, style: style.color ? .header : .plain)) }
        for i in 0..<rows.count { try emit(table.render(try rows.cells(i), style: style.color ? .values : .plain)) }
    }

    /// A count: the number, or `{"count":N}` in the JSON formats.
    static func count(_ n: Int, format: Format) -> String {
        format == .json || format == .jsonl ? JSONWriter.string(.object(JSONObject([("count", .int(Int64(n)))]))) : String(n)
    }

    /// The width to cut table lines to: the terminal's when standard output is one, else none. A terminal
    /// that does not tell its size (a bare pty) is taken as 80 columns: it is still a screen a person reads.
    static func terminalWidth(_ console: Console) -> Int? {
        guard console.stdoutIsTerminal else { return nil }
        return terminalSize().map { Int($0.ws_col) } ?? Int(console.environment["COLUMNS"] ?? "") ?? 80
    }

    /// The terminal's height in lines when standard output is one, else nil.
    static func terminalHeight(_ console: Console) -> Int? {
        guard console.stdoutIsTerminal else { return nil }
        return terminalSize().map { Int($0.ws_row) } ?? Int(console.environment["LINES"] ?? "")
    }

    /// Standard output's terminal size, when it tells one.
    private static func terminalSize() -> winsize? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return size
    }
}

extension TableCell {
    /// A field's value as JSON gives it: text as text, nil as nil, anything else as JSON writes it.
    init(json value: JSONValue) {
        switch value {
        case .null: self = .null
        case .string(let s): self = .text(s)
        default: self = .literal(JSONWriter.string(value))
        }
    }
}
