/// The change log's place in a store (docs/history.md#in-the-store): its tables, the row in
/// `_vein_log_state` that counts every row write, and the triggers that keep that count.
///
/// Two kinds of trigger, for two kinds of writer. The counting triggers are part of the store's schema,
/// so they run for every writer, the sqlcipher shell included, and they only add one to a counter. The
/// recording triggers are TEMP: each Vein connection that writes makes its own (`ChangeRecorder`), and
/// they hand each row change to Vein's function. A write that bypasses Vein is counted but not recorded,
/// and the difference is how the log knows it misses something.
package enum ChangeLogSchema {
    package static let transactions = "_vein_transactions"
    package static let changes = "_vein_changes"
    package static let state = "_vein_log_state"
    /// `_vein_meta` keys: this file's replica id.
    package static let replicaKey = "replica"

    static let createTables = [
        """
        CREATE TABLE "\(transactions)" (
          "token" INTEGER PRIMARY KEY AUTOINCREMENT,
          "kind" TEXT NOT NULL,
          "replica" TEXT NOT NULL,
          "clock" INTEGER NOT NULL,
          "author" TEXT,
          "schemaVersion" TEXT NOT NULL,
          "detail" TEXT
        )
        """,
        """
        CREATE TABLE "\(changes)" (
          "token" INTEGER NOT NULL,
          "part" INTEGER NOT NULL,
          "tableName" TEXT NOT NULL,
          "columns" TEXT NOT NULL,
          "count" INTEGER NOT NULL,
          "changes" BLOB NOT NULL,
          PRIMARY KEY ("token", "part")
        )
        """,
        #"CREATE TABLE "\#(state)" ("writes" INTEGER NOT NULL, "logged" INTEGER NOT NULL)"#,
        #"INSERT INTO "\#(state)" ("writes", "logged") VALUES (0, 0)"#,
    ]

    /// The counting triggers of one table, named `_vein_count_<i|u|d>_<table>`.
    static func countingTriggers(for table: LoggedTable) -> [String] {
        [("d", "DELETE"), ("i", "INSERT"), ("u", "UPDATE")].map { letter, event in
            "CREATE TRIGGER \(SQL.quoteIdentifier("_vein_count_\(letter)_\(table.name)")) AFTER \(event) ON \(SQL.quoteIdentifier(table.name)) "
                + #"BEGIN UPDATE "\#(state)" SET "writes" = "writes" + 1; END"#
        }
    }

    /// This file's replica id, nil when the store keeps no log. `schema` names an attached database.
    package static func replica(in database: Database, schema: String = "main") throws -> String? {
        try database.scalar("SELECT \"value\" FROM \(SQL.quoteIdentifier(schema)).\"_vein_meta\" WHERE \"key\" = ?", [.text(replicaKey)])?.string
    }

    /// The newest commit the log holds, or the last it was pruned through when that is later (a log
    /// pruned to nothing): its token and clock time; (0, 0) for a log that never committed. What a
    /// snapshot or a live query's results reflect.
    package static func newestCommit(in database: Database, schema: String = "main") throws -> (token: Int64, clock: Int64) {
        let row = try database.rows("SELECT \"token\", \"clock\" FROM \(SQL.quoteIdentifier(schema)).\(SQL.quoteIdentifier(transactions)) "
                                    + "ORDER BY \"token\" DESC LIMIT 1").first
        var newest: (token: Int64, clock: Int64) = (row?[0].int64 ?? 0, row?[1].int64 ?? 0)
        if let pruned = try ChangeLogPruning.prunedThrough(in: database, schema: schema), pruned.token > newest.token { newest = pruned }
        return newest
    }

    /// Makes a store's change log: tables, counter, counting triggers and a replica id. In the caller's
    /// transaction.
    package static func create(in database: Database, manifest: SchemaManifest) throws {
        for sql in createTables { try database.execute(sql) }
        try installCountingTriggers(in: database, manifest: manifest)
        try database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#,
                             [.text(replicaKey), .text(ULID.make().description)])
        try ChangeLogRetention.default.store(in: database)
    }

    /// Starts a log on a store that keeps none (`vein history enable`), in the caller's write transaction.
    /// Connections opened before it do not record; those opened after do.
    package static func start(in database: Database, manifest: SchemaManifest, path: String) throws {
        guard try !isKept(in: database) else { throw ChangeLogError.alreadyKept(path) }
        try create(in: database, manifest: manifest)
    }

    /// The counting triggers for `manifest`'s tables (after a migration rebuilt them).
    package static func installCountingTriggers(in database: Database, manifest: SchemaManifest) throws {
        for table in LoggedTable.all(in: manifest) {
            for sql in countingTriggers(for: table) {
                // Those a migration kept are there already.
                try database.execute(sql.replacingOccurrences(of: "CREATE TRIGGER ", with: "CREATE TRIGGER IF NOT EXISTS "))
            }
        }
    }

    /// Appends a transaction record and returns its token. `clock` is after the last record's.
    /// `after`: a clock time the record's must pass (a merged commit's, so what this store commits next
    /// orders after everything it has seen: docs/sync.md#merging).
    static func appendRecord(in database: Database, kind: TransactionKind, replica: String, author: String?,
                             schemaVersion: String, detail: String?, after seen: Int64? = nil) throws -> Int64 {
        let last = try database.scalar(#"SELECT "clock" FROM "\#(transactions)" ORDER BY "token" DESC LIMIT 1"#)?.int64
        let newest = [last, seen].compactMap { $0 }.max()
        try database.execute(#"INSERT INTO "\#(transactions)" ("kind", "replica", "clock", "author", "schemaVersion", "detail") VALUES (?, ?, ?, ?, ?, ?)"#,
                             [.text(kind.rawValue), .text(replica), .integer(HybridClock.next(after: newest)),
                              author.map(DatabaseValue.text) ?? .null, .text(schemaVersion), detail.map(DatabaseValue.text) ?? .null])
        return database.lastInsertRowID
    }

    /// A migration stage as one record (`detail`: the stage and its plan checksum), inside the run's
    /// transaction after the stage: the rebuilt tables get their counting triggers again, and the rows the
    /// stage wrote are taken as logged. Nothing when the store keeps no log.
    package static func appendSchemaRecord(in database: Database, stage: String, checksum: String, manifest: SchemaManifest) throws {
        guard try isKept(in: database) else { return }
        try installCountingTriggers(in: database, manifest: manifest)
        let replica = try self.replica(in: database) ?? ""
        _ = try appendRecord(in: database, kind: .schema, replica: replica, author: nil,
                             schemaVersion: manifest.version.description, detail: "\(stage) \(checksum)")
        try database.execute(#"UPDATE "\#(state)" SET "logged" = "writes""#)
    }

    /// Records the row writes another program made since the last commit Vein recorded, as one `outside`
    /// record, in the caller's write transaction. Returns how many there were (0: none, nothing written).
    /// A continuous backup calls it before it decides what to send, so such writes are a record in the
    /// log, of a known moment, which a new snapshot then covers.
    package static func recordOutsideWrites(in database: Database, manifest: SchemaManifest) throws -> Int64 {
        let counter = try database.rows(#"SELECT "writes", "logged" FROM "\#(state)""#)
        guard let row = counter.first, let writes = row[0].int64, let logged = row[1].int64 else {
            throw ChangeLogError.damaged("\(state) has no counter row")
        }
        guard writes != logged else { return 0 }
        let replica = try self.replica(in: database) ?? ""
        _ = try appendRecord(in: database, kind: .outside, replica: replica, author: nil, schemaVersion: manifest.version.description,
                             detail: String(writes - logged))
        try database.execute(#"UPDATE "\#(state)" SET "logged" = "writes""#)
        return writes - logged
    }

    /// What differs from the log `manifest`'s store keeps (`vein verify`): the log's tables as created,
    /// one counter row, and the counting triggers of every table and no others. Empty when the store keeps
    /// no log and has none of its triggers.
    package static func problems(in database: Database, manifest: SchemaManifest) throws -> [String] {
        var stored: [String: String] = [:]
        for row in try database.rows("SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'trigger') AND sql IS NOT NULL") {
            if let name = row[0].string, let sql = row[1].string { stored[name] = sql }
        }
        var problems: [String] = []
        let kept = stored[transactions] != nil
        var expected: [String: String] = [:]
        if kept {
            for sql in createTables where sql.hasPrefix("CREATE TABLE") {
                let name = sql.split(separator: "\"", maxSplits: 2).dropFirst().first.map(String.init) ?? ""
                if stored[name] == nil { problems.append("table \(name) is missing") } else if stored[name] != sql {
                    problems.append("table \(name) is not the change log's")
                }
            }
            if stored[state] != nil, try database.scalar(#"SELECT count(*) FROM "\#(state)""#)?.int64 != 1 {
                problems.append("\(state) must hold one row")
            }
            if try database.scalar(#"SELECT count(*) FROM "_vein_meta" WHERE "key" = ?"#, [.text(replicaKey)])?.int64 != 1 {
                problems.append("_vein_meta has no \(replicaKey)")
            }
            for table in LoggedTable.all(in: manifest) {
                for sql in countingTriggers(for: table) {
                    let name = sql.split(separator: "\"", maxSplits: 2).dropFirst().first.map(String.init) ?? ""
                    expected[name] = sql
                }
            }
        }
        for (name, sql) in expected.sorted(by: { $0.key < $1.key }) {
            if stored[name] == nil {
                problems.append("trigger \(name) is missing: the log cannot tell writes made outside Vein")
            } else if stored[name] != sql {
                problems.append("trigger \(name) is not the change log's")
            }
        }
        for name in stored.keys.sorted() where name.hasPrefix("_vein_count_") && expected[name] == nil {
            problems.append("trigger \(name) is not part of the schema")
        }
        return problems
    }

    /// Tables the log adds to a store (`vein verify` knows them).
    package static let tableNames = [transactions, changes, state]

    /// Whether the store on `database` keeps a change log.
    package static func isKept(in database: Database) throws -> Bool {
        try database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(transactions)])?.int64 == 1
    }
}
