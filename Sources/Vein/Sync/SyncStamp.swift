/// Who wrote a row, a link or a field last, as a merge compares them (docs/sync.md#merging): the hybrid
/// clock time of the write, then the replica's id to break a tie, so every replica picks the same winner.
struct SyncStamp: Comparable {
    let clock: Int64
    let replica: String

    static func < (a: SyncStamp, b: SyncStamp) -> Bool { (a.clock, a.replica) < (b.clock, b.replica) }

    /// What a row has when no write of a sync stamped it: the rows of the snapshot the sync began from.
    static let none = SyncStamp(clock: .min, replica: "")
}

/// The stamps a store keeps (`_vein_sync_stamps`): per table and key, one for the row or link itself (the
/// column `""`: its insert, or a link's last add or removal, which outlives a deleted row) and one per
/// field written since.
struct SyncStamps {
    let database: Database

    /// The key of a row (its id) or a link (owner and target) as the stamps name it.
    static func key(_ cells: [DatabaseValue]) -> String {
        cells.map { $0.string ?? "" }.joined(separator: "\u{1F}")
    }

    /// Every stamp of one row or link, by column (`""` the row's own).
    func stamps(table: String, key: String) throws -> [String: SyncStamp] {
        let statement = try database.cachedStatement(#"SELECT "column", "clock", "replica" FROM "\#(SyncState.stamps)" WHERE "tableName" = ? AND "key" = ?"#)
        defer { statement.reset() }
        try statement.bind([.text(table), .text(key)])
        var result: [String: SyncStamp] = [:]
        while try statement.step() { result[statement.string(0)] = SyncStamp(clock: statement.int64(1), replica: statement.string(2)) }
        return result
    }

    func set(_ stamp: SyncStamp, table: String, key: String, column: String) throws {
        let statement = try database.cachedStatement(#"INSERT OR REPLACE INTO "\#(SyncState.stamps)" ("tableName", "key", "column", "clock", "replica") VALUES (?, ?, ?, ?, ?)"#)
        defer { statement.reset() }
        try statement.bind([.text(table), .text(key), .text(column), .integer(stamp.clock), .text(stamp.replica)])
        try statement.step()
    }

    /// The stamp a field's value holds: its own, or the row's when that is newer (the row inserted again).
    static func field(_ column: String, in stamps: [String: SyncStamp]) -> SyncStamp {
        max(stamps[column] ?? .none, stamps[""] ?? .none)
    }
}
