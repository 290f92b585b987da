import Foundation

/// Writes a store as SPEC §7's JSON, streaming: one row in memory at a time, straight from SQL.
///
/// Canonical output: models in schema order, rows in id order, in each record `id` then fields then
/// relationships in schema order, doubles in their shortest round-trip form, dates with six fractional
/// digits, data in base64, json fields in their stored canonical text. So the same store always gives
/// the same bytes, and export → import → export gives them again.
public struct StoreExporter {
    public let store: Store
    public var format: InterchangeFormat = .json
    /// Models to export (all, in schema order, when empty).
    public var models: [String] = []
    /// A condition on the one model given in `models`.
    public var condition: String?
    public var progress: ProgressHandler?

    public init(store: Store) {
        self.store = store
    }

    @discardableResult
    public func export(to descriptor: Int32) throws -> InterchangeSummary {
        let manifest = store.manifest
        var selected: [ModelSchema] = []
        for name in models {
            guard let model = manifest.model(named: name) else { throw ContextError.unknownModel(name) }
            if !selected.contains(where: { $0.name == name }) { selected.append(model) }
        }
        if selected.isEmpty { selected = manifest.models }
        // Checked before the first byte is written.
        let predicate = try condition.map { source throws -> TypedExpression in
            guard selected.count == 1 else { throw ExportSelectionError.conditionNeedsOneModel }
            return try TypeChecker.checkPredicate(source, model: selected[0], manifest: manifest)
        }
        let total = try selected.reduce(0) { $0 + Int(try store.database.scalar("SELECT count(*) FROM \(SQL.quoteIdentifier($1.name))")?.int64 ?? 0) }

        let sink = ByteSink(descriptor: descriptor)
        var summary = InterchangeSummary()
        var header = "{\"vein\":1,\"app\":"
        JSONWriter.writeString(manifest.app, into: &header)
        header += ",\"schemaVersion\":"
        JSONWriter.writeString(store.meta.schemaVersion, into: &header)
        try sink.write(format == .json ? header + ",\"models\":{" : header + "}\n")
        var written = 0
        for (m, model) in selected.enumerated() {
            if format == .json {
                var key = m == 0 ? "\n" : "],\n"
                JSONWriter.writeString(model.name, into: &key)
                try sink.write(key + ":[")
            }
            let context = predicate == nil ? nil : ModelContext(store: store)
            var count = 0
            try rows(of: model, predicate: predicate, context: context) { record in
                if format == .json {
                    try sink.write((count == 0 ? "\n" : ",\n") + record)
                } else {
                    var line = "{\"model\":"
                    JSONWriter.writeString(model.name, into: &line)
                    try sink.write(line + "," + record.dropFirst() + "\n")
                }
                count += 1
                written += 1
                if written % 10_000 == 0 { progress?(WorkProgress(done: written, total: total, label: "records")) }
            }
            summary.records[model.name] = count
        }
        if format == .json { try sink.write(selected.isEmpty ? "}}\n" : "]\n}}\n") }
        try sink.flush()
        progress?(WorkProgress(done: written, total: total, label: "records"))
        return summary
    }

    /// Each row of `model` as a JSON object, in id order. A condition runs in SQL where SQL gives Swift's
    /// answer exactly; otherwise SQL narrows and the evaluator decides row by row.
    private func rows(of model: ModelSchema, predicate: TypedExpression?, context: ModelContext?, _ body: (String) throws -> Void) throws {
        let table = SQL.quoteIdentifier(model.name)
        let columns = model.columnNames
        var sql = "SELECT \(table).\"id\"" + columns.map { ", \(table).\(SQL.quoteIdentifier($0))" }.joined() + " FROM \(table)"
        var arguments: [DatabaseValue] = []
        var exact = true
        if let predicate, let compiled = SQLCompiler(table: table).condition(predicate) {
            sql += " WHERE \(compiled.sql)"
            arguments = compiled.arguments
            exact = compiled.isExact
        } else if predicate != nil {
            exact = false
        }
        let statement = try store.database.makeStatement(sql + " ORDER BY \(table).\"id\"")
        try statement.bind(arguments)
        let encoders = columns.map { name in ColumnEncoder(field: model.field(named: name)) }
        let keys = columns.map { name -> String in
            var key = ","
            JSONWriter.writeString(name, into: &key)
            return key + ":"
        }
        while try statement.step() {
            if let predicate, !exact, let context {
                guard let object = try context.object(model.name, id: statement.string(0)),
                      try context.evaluator(for: object).test(predicate) else { continue }
            }
            var record = "{\"id\":"
            JSONWriter.writeString(statement.string(0), into: &record)
            for (i, encoder) in encoders.enumerated() {
                record += keys[i]
                encoder.append(statement, i + 1, into: &record)
            }
            record += "}"
            try body(record)
        }
    }
}

enum ExportSelectionError: Error, Equatable {
    case conditionNeedsOneModel
}

/// How one column is written: decided once per model, applied to every row.
private struct ColumnEncoder {
    let field: FieldSchema?

    func append(_ s: Statement, _ column: Int, into out: inout String) {
        if s.isNull(column) { out += "null"; return }
        guard let field else {
            // A relationship: a to-one id, or a to-many's stored JSON array of ids (written canonically).
            let text = s.string(column)
            if text.hasPrefix("[") { out += text } else { JSONWriter.writeString(text, into: &out) }
            return
        }
        switch field.type {
        case .string, .uuid: JSONWriter.writeString(s.string(column), into: &out)
        case .int: out += String(s.int64(column))
        case .double: out += JSONWriter.formatDouble(s.double(column))
        case .bool: out += s.int64(column) != 0 ? "true" : "false"
        case .date: out += "\"" + ISODate.format(s.double(column)) + "\""
        case .data: out += "\"" + s.data(column).base64EncodedString() + "\""
        case .enum:
            if field.columnType == "INTEGER" { out += String(s.int64(column)) } else { JSONWriter.writeString(s.string(column), into: &out) }
        case .json:
            // Canonical already when Vein wrote it; re-canonicalized in case SQL wrote it by hand.
            let text = s.string(column)
            if let parsed = try? JSONParser.parse(text) { out += JSONWriter.string(parsed.canonicalized()) } else { JSONWriter.writeString(text, into: &out) }
        }
    }
}
