/// What a merge keeps out of the store because of a unique-value conflict (docs/sync.md#unique-values):
/// `_vein_sync_shadow` holds, per table, key and column, the value a cell has by the merge rules but that
/// the store's own tables cannot show while a row is set aside. Three kinds of entry:
///
/// - a **set-aside row**: its column `""` (1) and every value column, the row whole;
/// - a **link** with a set-aside end: its column `""` (1) and `position`;
/// - a **reference** of a row in the store to a set-aside row: its to-one column, whose value in the
///   store reads NULL meanwhile.
///
/// Entries change only with the merge rules: a cell here is written when a merged write wins, and dropped
/// when a newer write (merged or this store's own) takes its place. So a row that comes back comes back
/// with its fields, its links and what pointed at it, as if it had never been away.
///
/// The shadow is empty unless replicas disagreed over a value, and a merge asks it about every row and
/// link it writes: so it first looks once whether it holds anything (inside the caller's transaction, at
/// the first question), and answers without a statement when it does not.
final class SyncShadow {
    let database: Database
    /// Nil until the first question; then whether the table has an entry (or this shadow wrote one).
    private var mayHoldEntries: Bool?

    init(database: Database) {
        self.database = database
    }

    private func holdsAnything() throws -> Bool {
        if let known = mayHoldEntries { return known }
        let found = try !isEmpty()
        mayHoldEntries = found
        return found
    }

    static let table = StoreMeta.syncShadowTable
    static let createTable = #"CREATE TABLE IF NOT EXISTS "\#(table)" ("tableName" TEXT NOT NULL, "key" TEXT NOT NULL, "#
        + #""column" TEXT NOT NULL, "value", PRIMARY KEY ("tableName", "key", "column")) WITHOUT ROWID"#

    /// Whether `key` of `table` is set aside: a row, or a link with a set-aside end.
    func holds(_ table: String, key: String) throws -> Bool {
        try value(table, key: key, column: "") != nil
    }

    func value(_ table: String, key: String, column: String) throws -> DatabaseValue? {
        guard try holdsAnything() else { return nil }
        let statement = try database.cachedStatement(#"SELECT "value" FROM "\#(Self.table)" WHERE "tableName" = ? AND "key" = ? AND "column" = ?"#)
        defer { statement.reset() }
        try statement.bind([.text(table), .text(key), .text(column)])
        return try statement.step() ? statement.value(0) : nil
    }

    /// Every cell of one entry, by column (`""` for a row or link set aside).
    func cells(_ table: String, key: String) throws -> [String: DatabaseValue] {
        var result: [String: DatabaseValue] = [:]
        for row in try database.rows(#"SELECT "column", "value" FROM "\#(Self.table)" WHERE "tableName" = ? AND "key" = ?"#, [.text(table), .text(key)]) {
            result[row[0].string ?? ""] = row[1]
        }
        return result
    }

    func set(_ table: String, key: String, column: String, _ value: DatabaseValue) throws {
        mayHoldEntries = true
        let statement = try database.cachedStatement(#"INSERT OR REPLACE INTO "\#(Self.table)" ("tableName", "key", "column", "value") VALUES (?, ?, ?, ?)"#)
        defer { statement.reset() }
        try statement.bind([.text(table), .text(key), .text(column), value])
        try statement.step()
    }

    func remove(_ table: String, key: String, column: String) throws {
        guard try holdsAnything() else { return }
        let statement = try database.cachedStatement(#"DELETE FROM "\#(Self.table)" WHERE "tableName" = ? AND "key" = ? AND "column" = ?"#)
        defer { statement.reset() }
        try statement.bind([.text(table), .text(key), .text(column)])
        try statement.step()
    }

    func removeAll(_ table: String, key: String) throws {
        guard try holdsAnything() else { return }
        try database.execute(#"DELETE FROM "\#(Self.table)" WHERE "tableName" = ? AND "key" = ?"#, [.text(table), .text(key)])
    }

    /// The keys set aside in `table` (rows, or links for a link table).
    func keys(in table: String) throws -> [String] {
        try database.rows(#"SELECT "key" FROM "\#(Self.table)" WHERE "tableName" = ? AND "column" = '' ORDER BY "key""#, [.text(table)])
            .compactMap { $0[0].string }
    }

    /// The tables that have something set aside.
    func tables() throws -> [String] {
        try database.rows(#"SELECT DISTINCT "tableName" FROM "\#(Self.table)" WHERE "column" = '' ORDER BY "tableName""#).compactMap { $0[0].string }
    }

    /// Every entry's value in `column` of `table`, by key.
    func entries(in table: String, column: String) throws -> [(key: String, value: DatabaseValue)] {
        try database.rows(#"SELECT "key", "value" FROM "\#(Self.table)" WHERE "tableName" = ? AND "column" = ? ORDER BY "key""#,
                          [.text(table), .text(column)]).map { ($0[0].string ?? "", $0[1]) }
    }

    /// Whether the store has nothing set aside.
    func isEmpty() throws -> Bool {
        try !exists() || database.scalar(#"SELECT 1 FROM "\#(Self.table)" LIMIT 1"#) == nil
    }

    /// Whether the table is there: a replica made before it has none until its next merge makes it.
    func exists() throws -> Bool {
        try database.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(Self.table)]) != nil
    }
}
