import Foundation

/// Forgetting one object (`vein history purge --id`, docs/history.md#purging): every change the log holds
/// of the row with that id, or of a link naming it, keeps its kind and key and loses its values: the
/// fields an insert or an update wrote, the values a delete preserved, a link's position. What changed
/// and when stays; what the object held does not.
///
/// A purged change can no longer be replayed (an insert without its values), so the log remembers the
/// newest transaction a purge touched (`_vein_meta.historyPurgedThrough`): a continuous backup that has
/// not sent it starts a new generation from a snapshot instead.
package enum ChangeLogPurge {
    static let metaKey = "historyPurgedThrough"

    package struct Result: Equatable, Sendable {
        package let changes: Int
        package let transactions: Int
    }

    /// Purges `id`'s values, in the caller's write transaction.
    package static func purge(id: String, in database: Database) throws -> Result {
        guard try ChangeLogSchema.isKept(in: database) else { throw ChangeLogError.notKept(database.path) }
        let key = DatabaseValue.text(id)
        // Only parts whose bytes hold the id at all are read (a key cell holds it as text).
        let rows = try database.rows(#"SELECT "token", "part", "tableName", "columns", "changes" FROM "\#(ChangeLogSchema.changes)" "#
                                     + #"WHERE instr("changes", CAST(? AS BLOB)) > 0 ORDER BY "token", "part""#, [.text(id)])
        var changes = 0
        var tokens = Set<Int64>()
        for row in rows {
            guard let token = row[0].int64, let number = row[1].int64, let table = row[2].string, let columns = row[3].string,
                  case .blob(let bytes) = row[4] else { throw ChangeLogError.damaged("a part of the log has columns of the wrong types") }
            var part = try ChangeLogReader.part(table: table, columns: columns, bytes: [UInt8](bytes), token: token, partNumber: number)
            var touched = 0
            for index in part.changes.indices where part.changes[index].key.contains(key) && !part.changes[index].values.isEmpty {
                part.changes[index].values = []
                touched += 1
            }
            guard touched > 0 else { continue }
            var writer = ChangeBytesWriter()
            for change in part.changes { writer.append(change) }
            try database.execute(#"UPDATE "\#(ChangeLogSchema.changes)" SET "changes" = ? WHERE "token" = ? AND "part" = ?"#,
                                 [.blob(Data(writer.bytes)), .integer(token), .integer(number)])
            changes += touched
            tokens.insert(token)
        }
        if !tokens.isEmpty { try ChangeLogRetention.recount(in: database) }
        if let newest = tokens.max(), newest > (try purgedThrough(in: database) ?? 0) {
            try database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#, [.text(metaKey), .text(String(newest))])
        }
        return Result(changes: changes, transactions: tokens.count)
    }

    /// The newest transaction a purge changed; nil when none did.
    package static func purgedThrough(in database: Database) throws -> Int64? {
        guard let text = try database.scalar(#"SELECT "value" FROM "_vein_meta" WHERE "key" = ?"#, [.text(metaKey)])?.string else { return nil }
        guard let token = Int64(text) else { throw ChangeLogError.damaged("_vein_meta.\(metaKey) is \"\(text)\"") }
        return token
    }
}
