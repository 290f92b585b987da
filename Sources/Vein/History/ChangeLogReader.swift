import Foundation

/// Reads a store's change log (docs/history.md): the transactions after a token or a time, narrowed to a
/// model, an object or an author.
package struct ChangeLogReader {
    package var afterToken: Int64?
    /// Only transactions whose clock time is at or after this one.
    package var sinceClock: Int64?
    package var author: String?
    /// Only transactions this replica made (a sync stamps its own, never the ones it merged).
    package var replica: String?
    /// Only changes of these tables (a model's: `tables(of:in:)`).
    package var tables: Set<String>?
    /// Only changes of this row, and links naming it.
    package var id: String?

    package init() {}

    /// The matching transactions in token order. A transaction with no matching change is left out when
    /// a model or an id narrows the read.
    package func transactions(in database: Database) throws -> [LoggedTransaction] {
        guard try ChangeLogSchema.isKept(in: database) else { throw ChangeLogError.notKept(database.path) }
        if let pruned = try ChangeLogPruning.prunedThrough(in: database) {
            if let afterToken, afterToken < pruned.token {
                throw ChangeLogError.expired(since: "token \(afterToken)", prunedThrough: pruned.token)
            }
            if let sinceClock, sinceClock <= pruned.clock {
                throw ChangeLogError.expired(since: ISODate.format(HybridClock.date(of: sinceClock).timeIntervalSince1970), prunedThrough: pruned.token)
            }
        }
        var conditions: [String] = [], arguments: [DatabaseValue] = []
        if let afterToken { conditions.append(#""token" > ?"#); arguments.append(.integer(afterToken)) }
        if let sinceClock { conditions.append(#""clock" >= ?"#); arguments.append(.integer(sinceClock)) }
        if let author { conditions.append(#""author" = ?"#); arguments.append(.text(author)) }
        if let replica { conditions.append(#""replica" = ?"#); arguments.append(.text(replica)) }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        var result: [LoggedTransaction] = []
        let records = try database.makeStatement(#"SELECT "token", "kind", "replica", "clock", "author", "schemaVersion", "detail" FROM "\#(ChangeLogSchema.transactions)""#
                                                 + filter + #" ORDER BY "token""#)
        defer { records.reset() }
        try records.bind(arguments)
        let parts = try database.cachedStatement(#"SELECT "tableName", "columns", "changes", "part" FROM "\#(ChangeLogSchema.changes)" WHERE "token" = ? ORDER BY "part""#)
        while try records.step() {
            let token = records.int64(0)
            var transaction = try Self.record(token: token, kind: records.string(1), replica: records.string(2), clock: records.int64(3),
                                              author: records.isNull(4) ? nil : records.string(4), schemaVersion: records.string(5),
                                              detail: records.isNull(6) ? nil : records.string(6))
            defer { parts.reset() }
            try parts.bind([.integer(token)])
            while try parts.step() {
                let part = try Self.part(table: parts.string(0), columns: parts.string(1), bytes: [UInt8](parts.data(2)),
                                         token: token, partNumber: parts.int64(3))
                if let narrowed = narrowed(part) { transaction.parts.append(narrowed) }
            }
            parts.reset()
            if (tables != nil || id != nil) && transaction.parts.isEmpty && transaction.kind == .changes { continue }
            result.append(transaction)
        }
        return result
    }

    /// A transaction record as its row holds it, without its parts.
    static func record(token: Int64, kind: String, replica: String, clock: Int64, author: String?, schemaVersion: String,
                       detail: String?) throws -> LoggedTransaction {
        guard let kind = TransactionKind(rawValue: kind) else { throw ChangeLogError.damaged("transaction \(token) has the kind \"\(kind)\"") }
        return LoggedTransaction(token: token, kind: kind, replica: replica, clock: clock, author: author, schemaVersion: schemaVersion,
                                 detail: detail, parts: [])
    }

    /// A part as its row holds it: the table, its columns as a JSON array, and the changes' bytes.
    static func part(table: String, columns text: String, bytes: [UInt8], token: Int64, partNumber: Int64) throws -> LoggedPart {
        guard case .array(let items)? = try? JSONParser.parse(text) else {
            throw ChangeLogError.damaged("transaction \(token), part \(partNumber): its columns are not a JSON array")
        }
        let columns = items.compactMap { item -> String? in if case .string(let s) = item { return s } else { return nil } }
        guard columns.count == items.count, !columns.isEmpty else {
            throw ChangeLogError.damaged("transaction \(token), part \(partNumber): its columns are not names")
        }
        var part = LoggedPart(tableName: table, columns: columns, changes: [])
        var reader = ChangeBytesReader(bytes, keyCount: part.keyCount, columnCount: part.valueColumns.count)
        do { part.changes = try reader.readAll() } catch {
            throw ChangeLogError.damaged("transaction \(token), part \(partNumber) (\(table)) cannot be read")
        }
        return part
    }

    private func narrowed(_ part: LoggedPart) -> LoggedPart? {
        if let tables, !tables.contains(part.tableName) { return nil }
        var part = part
        if let id { part.changes = part.changes.filter { $0.key.contains(.text(id)) } }
        return part.changes.isEmpty ? nil : part
    }

    /// A model's table and the link tables of its relationships, either side.
    package static func tables(of model: ModelSchema, in manifest: SchemaManifest) -> Set<String> {
        Set([model.name] + model.relationships.compactMap { RelationshipStorage(model: model, relationship: $0, in: manifest).linkTable })
    }
}
