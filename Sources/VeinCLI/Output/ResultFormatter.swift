import Foundation
import Vein

/// Prints query results as table (aligned, cut to the terminal width), json, jsonl or csv.
enum ResultFormatter {
    enum Format: String, CaseIterable {
        case table, json, jsonl, csv
    }

    static func rows(_ objects: [ModelObject], model: ModelSchema) throws -> (header: [String], rows: [JSONObject]) {
        (["id"] + model.columnNames, try objects.map { try $0.jsonObject() })
    }

    static func print(_ objects: [ModelObject], model: ModelSchema, format: Format, console: Console) throws {
        let (header, rows) = try rows(objects, model: model)
        switch format {
        case .json: console.outJSON(.array(rows.map(JSONValue.object)))
        case .jsonl: for row in rows { console.out(JSONWriter.string(.object(row))) }
        case .csv:
            console.out(header.map(csvField).joined(separator: ","))
            for row in rows { console.out(header.map { csvField(cell(row[$0] ?? .null, forCSV: true)) }.joined(separator: ",")) }
        case .table:
            let cells = rows.map { row in header.map { cell(row[$0] ?? .null, forCSV: false) } }
            var widths = header.map(\.count)
            for line in cells { for (i, c) in line.enumerated() { widths[i] = max(widths[i], min(c.count, 40)) } }
            let limit = terminalWidth(console)
            func render(_ line: [String]) -> String {
                let text = line.enumerated().map { i, c in
                    let clipped = c.count > widths[i] ? String(c.prefix(widths[i] - 1)) + "…" : c
                    return clipped.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
                let trimmed = String(text.reversed().drop { $0 == " " }.reversed())
                guard let limit, trimmed.count > limit else { return trimmed }
                return String(trimmed.prefix(limit - 1)) + "…"
            }
            console.out(render(header))
            for line in cells { console.out(render(line)) }
            console.note("(\(rows.count) \(rows.count == 1 ? "row" : "rows"))")
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
        let json: [JSONValue] = changes.map { c in
            .object(JSONObject([("change", .string(c.kind.rawValue)), ("model", .string(c.model)), ("id", .string(c.id)),
                                ("fields", .array(c.fields.map(JSONValue.string)))]))
        }
        switch format {
        case .json: console.outJSON(.array(json))
        case .jsonl: for j in json { console.out(JSONWriter.string(j)) }
        case .csv:
            console.out("change,model,id,fields")
            for c in changes { console.out([c.kind.rawValue, c.model, c.id, c.fields.joined(separator: " ")].map(csvField).joined(separator: ",")) }
        case .table:
            for c in changes {
                let verb = ["insert": "inserted", "update": "updated", "delete": "deleted"][c.kind.rawValue]!
                console.out("\(verb) \(c.model) \(c.id.escapingControlCharacters)" + (c.fields.isEmpty ? "" : " (\(c.fields.joined(separator: ", ")))"))
            }
        }
    }
}
