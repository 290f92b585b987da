/// Removing a log's oldest transactions (`vein history prune`, docs/history.md#pruning). What was pruned is
/// remembered (`_vein_meta.historyPrunedThrough`: the last token removed and its clock time), so a read
/// that asks for what came after a pruned token is told it expired, never given less in silence.
package enum ChangeLogPruning {
    static let metaKey = "historyPrunedThrough"
    /// The last token a sync has sent (docs/sync.md#in-the-store): the log keeps every transaction after
    /// it, whatever the retention or a prune asks, so nothing is lost before it is sent.
    package static let heldAfterKey = "historyHeldAfter"

    /// The last transaction pruned: its token and clock time; nil when nothing was. `schema` names an
    /// attached database (a copy reads its source's).
    package static func prunedThrough(in database: Database, schema: String = "main") throws -> (token: Int64, clock: Int64)? {
        guard let text = try database.scalar("SELECT \"value\" FROM \(SQL.quoteIdentifier(schema)).\"_vein_meta\" WHERE \"key\" = ?",
                                             [.text(metaKey)])?.string else { return nil }
        let parts = text.split(separator: " ").compactMap { Int64($0) }
        guard parts.count == 2 else { throw ChangeLogError.damaged("_vein_meta.\(metaKey) is \"\(text)\"") }
        return (parts[0], parts[1])
    }

    /// Removes every transaction with a token up to `token`, with its changes, in the caller's write
    /// transaction. Returns how many were removed.
    @discardableResult
    package static func prune(in database: Database, through token: Int64) throws -> Int {
        guard try ChangeLogSchema.isKept(in: database) else { throw ChangeLogError.notKept(database.path) }
        var token = token
        if let held = try database.scalar(#"SELECT "value" FROM "_vein_meta" WHERE "key" = ?"#, [.text(heldAfterKey)])?.string.flatMap({ Int64($0) }) {
            token = min(token, held)
        }
        let last = try database.rows(#"SELECT "token", "clock" FROM "\#(ChangeLogSchema.transactions)" WHERE "token" <= ? ORDER BY "token" DESC LIMIT 1"#,
                                     [.integer(token)]).first
        guard let last, let lastToken = last[0].int64, let lastClock = last[1].int64 else { return 0 }
        // A size policy's kept total loses what goes (`ChangeLogRetention.size`).
        try database.execute(#"UPDATE "_vein_meta" SET "value" = CAST("value" AS INTEGER) - (SELECT CAST(total(length("changes")) AS INTEGER) "#
                             + #"FROM "\#(ChangeLogSchema.changes)" WHERE "token" <= ?) WHERE "key" = ?"#,
                             [.integer(lastToken), .text(ChangeLogRetention.bytesKey)])
        try database.execute(#"DELETE FROM "\#(ChangeLogSchema.changes)" WHERE "token" <= ?"#, [.integer(lastToken)])
        try database.execute(#"DELETE FROM "\#(ChangeLogSchema.transactions)" WHERE "token" <= ?"#, [.integer(lastToken)])
        let removed = database.changes
        try database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#,
                             [.text(metaKey), .text("\(lastToken) \(lastClock)")])
        return removed
    }

    /// The token before which `vein history prune --before TIME` removes (the last one with an earlier clock).
    package static func lastToken(before clock: Int64, in database: Database) throws -> Int64? {
        try database.scalar(#"SELECT max("token") FROM "\#(ChangeLogSchema.transactions)" WHERE "clock" < ?"#, [.integer(clock)])?.int64
    }

    /// The token after which the newest `count` transactions begin.
    package static func lastToken(keepingNewest count: Int, in database: Database) throws -> Int64? {
        try database.scalar(#"SELECT "token" FROM "\#(ChangeLogSchema.transactions)" ORDER BY "token" DESC LIMIT 1 OFFSET ?"#,
                            [.integer(Int64(count))])?.int64
    }
}
