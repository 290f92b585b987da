import Foundation

/// Writes a store as the JSON of docs/interchange.md, streaming: one row in memory at a time, straight from SQL.
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

    /// The mode of a new export file: an export is plaintext, whatever the store's encryption, so only its
    /// owner may read it. A file it replaces keeps its own mode.
    package static let fileMode: mode_t = 0o600

    public init(store: Store) {
        self.store = store
    }

    /// Writes the export to `descriptor`; `name` (a file, "standard output") is what error messages call it.
    /// Everything is read in one read transaction: one snapshot of the store, so an export taken while
    /// other processes write holds whole commits (never a row whose related rows are from a later one),
    /// and writers go on meanwhile.
    @discardableResult
    public func export(to descriptor: Int32, name: String = "standard output") throws -> InterchangeSummary {
        try store.transaction(.deferred) { try exportSnapshot(to: descriptor, name: name) }
    }

    private func exportSnapshot(to descriptor: Int32, name: String) throws -> InterchangeSummary {
        let manifest = store.manifest
        for name in models where manifest.model(named: name) == nil { throw ContextError.unknownModel(name) }
        // Schema order whatever the order asked in: the same selection always gives the same bytes.
        let selected = models.isEmpty ? manifest.models : manifest.models.filter { models.contains($0.name) }
        // Checked before the first byte is written.
        let predicate = try condition.map { source throws -> TypedExpression in
            guard selected.count == 1 else { throw ExportSelectionError.conditionNeedsOneModel }
            return try TypeChecker.checkPredicate(source, model: selected[0], manifest: manifest)
        }
        let total = try selected.reduce(0) { $0 + Int(try store.database.scalar("SELECT count(*) FROM \(SQL.quoteIdentifier($1.name))")?.int64 ?? 0) }

        let sink = ByteSink(descriptor: descriptor, name: name)
        var summary = InterchangeSummary()
        var header = "{\"vein\":\(InterchangeVersion.current),\"app\":"
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
            // On the export's own connection: the rows it tests are read in the export's snapshot.
            let context = predicate == nil ? nil : try ObjectContext(database: store.database, manifest: manifest)
            var count = 0
            var line = "{"
            if format == .jsonl {
                line += "\"model\":"
                JSONWriter.writeString(model.name, into: &line)
                line += ","
            }
            let prefix = Array(line.utf8)
            try rows(of: model, predicate: predicate, context: context, prefix: prefix) { record in
                if format == .json {
                    try sink.write(bytes: count == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                    try sink.write(bytes: record)
                } else {
                    try sink.write(bytes: record)
                    try sink.write(bytes: [0x0A])
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
    private func rows(of model: ModelSchema, predicate: TypedExpression?, context: ObjectContext?, prefix: [UInt8],
                      _ body: ([UInt8]) throws -> Void) throws {
        let table = SQL.quoteIdentifier(model.name)
        let columns = model.columnNames
        let selected = columns.map { name -> String in
            guard let rel = model.relationship(named: name), rel.isToMany else { return "\(table).\(SQL.quoteIdentifier(name))" }
            return RelationshipStorage(model: model, relationship: rel, in: store.manifest).idArraySQL(owner: "\(table).\(StoreFormat.key)")
        }
        var sql = "SELECT \(table).\(StoreFormat.key)" + selected.map { ", \($0)" }.joined() + " FROM \(table)"
        var arguments: [DatabaseValue] = []
        var exact = true
        if let predicate, let compiled = SQLCompiler(table: table, model: model, manifest: store.manifest).condition(predicate) {
            try store.database.install(SQLFunctions.self)
            sql += " WHERE \(compiled.sql)"
            arguments = compiled.arguments
            exact = compiled.isExact
        } else if predicate != nil {
            exact = false
        }
        let statement = try store.database.makeStatement(sql + " ORDER BY \(table).\(StoreFormat.key)")
        try statement.bind(arguments)
        // Nil for a to-many: its array of ids is built by SQL (`RelationshipStorage.idArraySQL`).
        let codecs = columns.map { name -> FieldCodec? in
            if let field = model.field(named: name) { return field.codec }
            return model.relationship(named: name)!.isToMany ? nil : .reference
        }
        let keys = columns.map { name -> [UInt8] in
            var key: [UInt8] = [UInt8(ascii: ",")]
            JSONWriter.writeString(utf8: Array(name.utf8), into: &key)
            return key + [UInt8(ascii: ":")]
        }
        let idKey = Array("\"\(InterchangeVersion.keyMember(Int64(InterchangeVersion.current))!)\":".utf8)
        var record: [UInt8] = []
        record.reserveCapacity(4096)
        while try statement.step() {
            if let predicate, !exact, let context {
                guard let object = try context.object(model.name, id: statement.string(0)),
                      try context.evaluator(for: object).test(predicate) else { continue }
            }
            record.removeAll(keepingCapacity: true)
            record += prefix
            record += idKey
            JSONWriter.writeString(utf8: statement.textBytes(0), into: &record)
            for (i, codec) in codecs.enumerated() {
                record += keys[i]
                guard let codec else {
                    record += statement.textBytes(i + 1)
                    continue
                }
                do {
                    try codec.writeJSON(statement, i + 1, into: &record)
                } catch {
                    throw error.damaged(model: model.name, field: columns[i], id: statement.string(0), expected: codec.typeName)
                }
            }
            record.append(UInt8(ascii: "}"))
            try body(record)
        }
    }
}

public enum ExportSelectionError: Error, Equatable, Sendable {
    case conditionNeedsOneModel
}

extension ExportSelectionError: CustomStringConvertible {
    public var description: String {
        "a condition needs exactly one model (the condition is written against one model's fields)"
    }
}
