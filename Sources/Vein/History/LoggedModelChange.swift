import Foundation

/// A logged change as a person or a script reads it (`vein history`, docs/history.md#reading-it): in the
/// schema's words, a model's row or a link of a relationship, rather than a table's row.
package struct LoggedModelChange: Equatable, Sendable {
    package enum Kind: String, Sendable {
        case insert, update, delete
        /// A link table's row: a member added to a list, taken out of it, or moved within it.
        case link, unlink, move
    }

    package var kind: Kind
    /// The model whose row changed, or that owns the relationship (`Post` of `Post.tags`).
    package var model: String
    /// The row's id, or the relationship's owner.
    package var id: String
    /// New values by field or to-one name, as export writes them (insert: every column; update: those
    /// that changed). A list's position kept in a member's row appears as `order in Model.list`.
    package var fields: JSONObject = JSONObject()
    /// `link`, `unlink`, `move`: the relationship (`Post.tags`), its member and the member's position.
    package var relationship: String?
    package var member: String?
    package var position: Int64?

    /// The changes of `transaction`, read with `manifest` (the store's schema now). A column the schema
    /// no longer has is shown under its stored name with its stored value.
    package static func changes(of transaction: LoggedTransaction, manifest: SchemaManifest) -> [LoggedModelChange] {
        transaction.parts.flatMap { part -> [LoggedModelChange] in
            if part.isLinkTable { return linkChanges(part, manifest: manifest) }
            let model = manifest.model(named: part.tableName)
            let columns = Array(part.valueColumns)
            let names = columns.map { displayName(of: $0, in: model, manifest: manifest) }
            return part.changes.map { change -> LoggedModelChange in
                let kind: Kind
                switch change.kind {
                case .insert, .insertContinued: kind = .insert
                case .update: kind = .update
                case .delete: kind = .delete
                }
                var fields = JSONObject()
                for (column, value) in change.values {
                    fields[names[column]] = json(value, column: columns[column], model: model)
                }
                return LoggedModelChange(kind: kind, model: part.tableName, id: change.key.first?.string ?? "", fields: fields)
            }
        }
    }

    private static func linkChanges(_ part: LoggedPart, manifest: SchemaManifest) -> [LoggedModelChange] {
        let storage = RelationshipStorage.all(in: manifest).first { $0.linkTable == part.tableName && $0.isCanonical }
        let relationship = storage.map { "\($0.model).\($0.name)" } ?? part.tableName
        return part.changes.map { change in
            let kind: Kind = change.kind == .delete ? .unlink : change.kind == .update ? .move : .link
            let position = change.values.first { part.valueColumns[part.keyCount + $0.column] == "position" }?.value.int64
            return LoggedModelChange(kind: kind, model: storage?.model ?? part.tableName, id: change.key.first?.string ?? "",
                                 relationship: relationship, member: change.key.dropFirst().first?.string, position: position)
        }
    }

    private static func displayName(of column: String, in model: ModelSchema?, manifest: SchemaManifest) -> String {
        guard let model, column.hasPrefix("_vein_pos_") else { return column }
        for rel in model.relationships where !rel.isToMany {
            let storage = RelationshipStorage(model: model, relationship: rel, in: manifest)
            if storage.positionColumn == column, let inverse = rel.inverse { return "order in \(rel.target).\(inverse)" }
        }
        return column
    }

    private static func json(_ value: DatabaseValue, column: String, model: ModelSchema?) -> JSONValue {
        if let field = model?.field(named: column) { return field.jsonValue(fromDatabase: value) }
        switch value {
        case .null: return .null
        case .integer(let i): return .int(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        case .blob(let d): return .string(d.base64EncodedString())
        }
    }

    /// The change as `vein history --json` writes it.
    package var json: JSONValue {
        var object = JSONObject([("change", .string(kind.rawValue)), ("model", .string(model)), ("id", .string(id))])
        if let relationship { object["relationship"] = .string(relationship) }
        if let member { object["member"] = .string(member) }
        if let position { object["position"] = .int(position) }
        if relationship == nil { object["fields"] = .object(fields) }
        return .object(object)
    }
}

extension LoggedTransaction {
    /// The transaction as `vein history --json` writes it, its changes read with `manifest`.
    package func json(manifest: SchemaManifest) -> JSONValue {
        var object = JSONObject([
            ("token", .int(token)), ("kind", .string(kind.rawValue)), ("time", .string(ISODate.format(date.timeIntervalSince1970))),
            ("clock", .int(clock)), ("replica", .string(replica)), ("author", author.map(JSONValue.string) ?? .null),
            ("schemaVersion", .string(schemaVersion)),
        ])
        switch kind {
        case .changes: object["changes"] = .array(LoggedModelChange.changes(of: self, manifest: manifest).map(\.json))
        case .schema: object["stage"] = .string(detail ?? "")
        case .outside: object["rowWrites"] = .int(Int64(detail ?? "") ?? 0)
        }
        return .object(object)
    }
}
