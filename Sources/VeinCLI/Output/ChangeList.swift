import Vein

/// What a write changed or a save would write: a line per change, or in the machine formats a record per
/// change. Past a screenful on a terminal the lines are summarised (`ChangeSummary`); the whole list is one
/// option away (`changes --all` in the REPL), and a file or a pipe always gets it whole.
extension ResultFormatter {
    static func print(_ changes: [ObjectContext.Change], format: Format, console: Console) throws {
        try write(changes, format: format, emit: { console.out($0) })
    }

    /// Writes the changes; with `summarizingPast`, a list longer than that many lines (table and line
    /// formats) is written as `ChangeSummary` lines. Returns whether it was.
    @discardableResult
    static func write(_ changes: [ObjectContext.Change], format: Format, summarizingPast limit: Int? = nil, emit: Emit) throws -> Bool {
        let json: [JSONValue] = changes.map { c in
            .object(JSONObject([("change", .string(c.kind.rawValue)), ("model", .string(c.model)), ("id", .string(c.id)),
                                ("fields", .array(c.fields.map(JSONValue.string)))]))
        }
        switch format {
        case .json: try emit(JSONWriter.string(.array(json), pretty: true))
        case .jsonl: for j in json { try emit(JSONWriter.string(j)) }
        case .csv:
            try emit("change,model,id,fields")
            for c in changes { try emit([c.kind.rawValue, c.model, c.id, c.fields.joined(separator: " ")].map { CSVField.write($0) }.joined(separator: ",")) }
        case .table, .line:
            if let limit, changes.count > limit {
                for line in ChangeSummary.lines(changes) { try emit(line) }
                return true
            }
            for c in changes {
                try emit("\(ChangeSummary.verb(c.kind)) \(c.model) \(c.id.escapingControlCharacters)" + (c.fields.isEmpty ? "" : " (\(c.fields.joined(separator: ", ")))"))
            }
        }
        return false
    }
}

/// A long list of changes in a few lines: one per kind of change and model, with how many, which fields
/// (and how often each, when they differ), the first ids whole, and how many more:
///
///     updated 131 Post rows (views): 01J…A, 01J…B, 01J…C, … 128 more
enum ChangeSummary {
    static let sampleIDs = 3

    static func lines(_ changes: [ObjectContext.Change]) -> [String] {
        var groups: [(key: String, changes: [ObjectContext.Change])] = []
        var index: [String: Int] = [:]
        for change in changes {
            let key = "\(change.kind.rawValue) \(change.model)"
            if let i = index[key] { groups[i].changes.append(change) } else {
                index[key] = groups.count
                groups.append((key, [change]))
            }
        }
        return groups.map { group in
            let first = group.changes[0], count = group.changes.count
            let ids = group.changes.prefix(sampleIDs).map(\.id.escapingControlCharacters)
            let more = count > sampleIDs ? ", … \(count - sampleIDs) more" : ""
            return "\(verb(first.kind)) \(Phrase.count(count, "\(first.model) row"))\(fields(group.changes)): " + ids.joined(separator: ", ") + more
        }
    }

    /// " (views)" when every change of a group names the same fields, " (views 131, title 20)" when not.
    static func fields(_ changes: [ObjectContext.Change]) -> String {
        var counts: [String: Int] = [:], order: [String] = []
        for change in changes {
            for field in change.fields {
                if counts[field] == nil { order.append(field) }
                counts[field, default: 0] += 1
            }
        }
        guard !order.isEmpty else { return "" }
        let uniform = counts.values.allSatisfy { $0 == changes.count }
        return " (" + order.map { uniform ? $0 : "\($0) \(counts[$0]!)" }.joined(separator: ", ") + ")"
    }

    static func verb(_ kind: ObjectContext.Change.Kind) -> String {
        switch kind {
        case .insert: return "inserted"
        case .update: return "updated"
        case .delete: return "deleted"
        }
    }
}
