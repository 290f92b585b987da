import Foundation

/// What a segment carries (docs/backup.md#segments): the change log's transactions after a token, as the
/// log's rows hold them, so a restore replays exactly what was recorded.
///
///     transaction count (varint), then per transaction:
///       cells token · kind · replica · clock · author · schema version · detail, part count (varint),
///       then per part: cells part · table · columns · changes
///
/// with varints and cells as in the change log's own bytes (`ChangeBytesWriter`).
struct SegmentPayload {
    /// Where each transaction is in the log: enough to decide, before sealing, what the segment may carry.
    struct Entry: Equatable {
        let token: Int64
        let kind: TransactionKind
        let clock: Int64
    }

    private(set) var bytes: [UInt8] = []
    private(set) var entries: [Entry] = []

    /// The transactions after `token` in the log of `database`, up to `limit` of them, read in the caller's
    /// read transaction.
    /// `replica`: only that replica's transactions of kind `changes` (what a sync sends: docs/sync.md).
    static func read(from database: Database, after token: Int64, limit: Int, replica: String? = nil) throws -> SegmentPayload {
        var writer = ChangeBytesWriter()
        var entries: [Entry] = []
        var body = ChangeBytesWriter()
        let records = try database.makeStatement(#"SELECT "token", "kind", "replica", "clock", "author", "schemaVersion", "detail" FROM "\#(ChangeLogSchema.transactions)" WHERE "token" > ?"#
                                                 + (replica == nil ? "" : #" AND "replica" = ? AND "kind" = 'changes'"#) + #" ORDER BY "token" LIMIT ?"#)
        defer { records.reset() }
        try records.bind([.integer(token)] + (replica.map { [.text($0)] } ?? []) + [.integer(Int64(limit))])
        let parts = try database.cachedStatement(#"SELECT "part", "tableName", "columns", "changes" FROM "\#(ChangeLogSchema.changes)" WHERE "token" = ? ORDER BY "part""#)
        while try records.step() {
            let token = records.int64(0)
            guard let kind = TransactionKind(rawValue: records.string(1)) else {
                throw ChangeLogError.damaged("transaction \(token) has the kind \"\(records.string(1))\"")
            }
            entries.append(Entry(token: token, kind: kind, clock: records.int64(3)))
            for column in 0..<7 { body.appendCell(records.value(column)) }
            var rows: [[DatabaseValue]] = []
            defer { parts.reset() }
            try parts.bind([.integer(token)])
            while try parts.step() { rows.append((0..<4).map { parts.value($0) }) }
            parts.reset()
            body.appendVarint(UInt64(rows.count))
            for row in rows { for cell in row { body.appendCell(cell) } }
        }
        writer.appendVarint(UInt64(entries.count))
        return SegmentPayload(bytes: writer.bytes + body.bytes, entries: entries)
    }

    /// The transactions of a payload that `file` held, refusing bytes that are not a whole payload.
    static func transactions(in bytes: [UInt8], file: String) throws -> [LoggedTransaction] {
        var cursor = CellCursor(bytes)
        func damaged(_ reason: String) -> BackupError { .damaged(file: file, reason: reason) }
        do {
            let count = try cursor.varint()
            var result: [LoggedTransaction] = []
            for _ in 0..<count {
                let cells = try (0..<7).map { _ throws(CellCursor.Damaged) in try cursor.cell() }
                guard let token = cells[0].int64, let kind = cells[1].string, let replica = cells[2].string, let clock = cells[3].int64,
                      let version = cells[5].string else { throw damaged("a transaction record is incomplete") }
                var transaction = try ChangeLogReader.record(token: token, kind: kind, replica: replica, clock: clock, author: cells[4].string,
                                                             schemaVersion: version, detail: cells[6].string)
                let partCount = try cursor.varint()
                for _ in 0..<partCount {
                    let row = try (0..<4).map { _ throws(CellCursor.Damaged) in try cursor.cell() }
                    guard let number = row[0].int64, let table = row[1].string, let columns = row[2].string, case .blob(let changes) = row[3] else {
                        throw damaged("transaction \(token) has an incomplete part")
                    }
                    transaction.parts.append(try ChangeLogReader.part(table: table, columns: columns, bytes: [UInt8](changes), token: token, partNumber: number))
                }
                if let last = result.last, last.token >= token { throw damaged("its transactions are out of order") }
                result.append(transaction)
            }
            guard cursor.isAtEnd else { throw damaged("bytes follow its last transaction") }
            return result
        } catch is CellCursor.Damaged {
            throw damaged("its payload is cut short or malformed")
        } catch let error as ChangeLogError {
            throw damaged(error.message)
        }
    }
}
