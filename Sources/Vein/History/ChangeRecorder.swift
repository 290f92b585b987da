import CSQLCipher
import Foundation

/// Records a connection's row changes and writes them to the change log inside the transaction that
/// made them (docs/history.md, ARCHITECTURE.md I20). One per writing connection of a store that keeps a
/// log, installed by `Store`.
///
/// TEMP triggers on each logged table call `vein_record` once per row change (per group of columns for a
/// wide table), and the function appends the change's bytes to its table's buffer. Nothing is written to
/// the store until `willCommit`, which adds one transaction record and one part per changed table: the
/// cost of the log is one statement per table per commit, not one per row. Statement failures, savepoint
/// rollbacks and rollbacks reach the buffers through `TransactionObserver`, so what is written is what
/// commits.
package final class ChangeRecorder: TransactionObserver {
    private var tables: [LoggedTable] { didSet { tableIndexes = Self.indexes(of: tables) } }
    private var tableIndexes: [String: Int] = [:]
    private let replica: String
    private var schemaVersion: String
    private var buffers: [ChangeBytesWriter]
    /// Row writes the triggers reported in this transaction: the counting triggers saw as many.
    private var events = 0
    /// The state before each recorded call, so `undo(to:)` can return to any earlier one.
    private var journal: [(table: Int, length: Int, count: Int, events: Int)] = []
    /// Calls recorded and already written out in this transaction (`statementDidFinish`).
    private var journalBase = 0
    /// This transaction's record and its last part, once parts were written before the commit.
    private var token: Int64?
    private var part: Int64 = 0
    /// Bytes of change records this transaction wrote (a size policy's total grows by them).
    private var bytesWritten = 0
    /// Set while the recorder writes the log itself: the statements it runs finish too.
    private var isWriting = false
    /// Set while a migration rewrites tables: their changes are one schema record, not rows.
    private var isPaused = false
    /// Who makes the next commits, kept with them: the connection's context's author
    /// (`ObjectContext.author`) when it has one, else the store's (`Store.changeAuthor`: the command).
    package var author: String?
    package var contextAuthor: String?
    /// Set while a sync applies another replica's commits (docs/sync.md#in-the-store): the next commit is
    /// recorded as that replica's, so it is never sent back, at a clock after the newest it carried.
    package var merging: (replica: String, clock: Int64)?

    /// Columns per call of `vein_record`: SQLite allows a function at most 127 arguments, and an update
    /// passes each column twice.
    static let columnsPerCall = 50
    static let functionName = "vein_record"

    /// Installs a recorder on `database`, a connection to a store keeping a log of `manifest`'s tables.
    @discardableResult
    package static func install(on database: Database, manifest: SchemaManifest, replica: String) throws -> ChangeRecorder {
        let recorder = ChangeRecorder(tables: LoggedTable.all(in: manifest), replica: replica, schemaVersion: manifest.version.description)
        let context = Unmanaged.passUnretained(recorder).toOpaque()
        let rc = sqlite3_create_function_v2(database.handle, functionName, -1, SQLITE_UTF8, context, { c, n, v in
            guard let c, let v else { return }
            let recorder = Unmanaged<ChangeRecorder>.fromOpaque(sqlite3_user_data(c)).takeUnretainedValue()
            if let message = recorder.record(UnsafeBufferPointer(start: v, count: Int(n))) {
                sqlite3_result_error(c, message, -1)
            }
        }, nil, nil, nil)
        guard rc == SQLITE_OK else {
            throw DatabaseError(extendedCode: rc, message: "could not register the SQL function \(functionName): \(String(cString: sqlite3_errstr(rc)))")
        }
        // Rows replaced by INSERT OR REPLACE are deleted as rows, with their triggers.
        try database.execute("PRAGMA recursive_triggers = ON")
        try recorder.installTriggers(on: database)
        database.observeTransactions(recorder)
        return recorder
    }

    private init(tables: [LoggedTable], replica: String, schemaVersion: String) {
        self.tables = tables
        self.tableIndexes = Self.indexes(of: tables)
        self.replica = replica
        self.schemaVersion = schemaVersion
        self.buffers = Array(repeating: ChangeBytesWriter(), count: tables.count)
    }

    private static func indexes(of tables: [LoggedTable]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: tables.enumerated().map { ($1.name, $0) })
    }

    /// The TEMP triggers of table `index`: insert and update pass their columns in groups of
    /// `columnsPerCall`; a delete passes the key.
    static func recordingTriggers(for table: LoggedTable, index: Int) -> [String] {
        let q = SQL.quoteIdentifier
        let groups = stride(from: 0, to: max(table.valueColumns.count, 1), by: columnsPerCall).map {
            ($0, Array(table.valueColumns[$0..<min($0 + columnsPerCall, table.valueColumns.count)]))
        }
        func trigger(_ letter: String, _ event: String, _ calls: [String]) -> String {
            "CREATE TEMP TRIGGER IF NOT EXISTS \(q("_vein_record_\(letter)_\(table.name)")) AFTER \(event) ON main.\(q(table.name)) BEGIN "
                + calls.map { "SELECT \(functionName)(\($0)); " }.joined() + "END"
        }
        let newKey = table.keyColumns.map { "new.\(q($0))" }, oldKey = table.keyColumns.map { "old.\(q($0))" }
        let inserts = groups.map { first, columns in
            ([String(index), String(first == 0 ? ChangeKind.insert.rawValue : ChangeKind.insertContinued.rawValue), String(first)]
                + newKey + columns.map { "new.\(q($0))" }).joined(separator: ", ")
        }
        let updates = groups.map { first, columns in
            ([String(index), String(ChangeKind.update.rawValue), String(first)] + oldKey + newKey
                + columns.flatMap { ["old.\(q($0))", "new.\(q($0))"] }).joined(separator: ", ")
        }
        // A delete passes its key, then (column, old value) for each field that keeps its value on deletion.
        let preserved = table.preservedColumns.flatMap { [String($0), "old.\(q(table.valueColumns[$0]))"] }
        let delete = ([String(index), String(ChangeKind.delete.rawValue), "0"] + oldKey + preserved).joined(separator: ", ")
        return [trigger("i", "INSERT", inserts), trigger("u", "UPDATE", updates), trigger("d", "DELETE", [delete])]
    }

    // MARK: Recording (inside SQLite's call of the function)

    /// Records one call; returns an error message for a call no trigger of this recorder makes.
    private func record(_ arguments: UnsafeBufferPointer<OpaquePointer?>) -> String? {
        guard !isPaused else { return nil }
        guard arguments.count >= 3, let t = arguments[0], let k = arguments[1], let f = arguments[2] else { return "vein_record: bad call" }
        let index = Int(sqlite3_value_int64(t)), first = Int(sqlite3_value_int64(f))
        guard tables.indices.contains(index), let kind = ChangeKind(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int64(k))) else {
            return "vein_record: bad call"
        }
        let table = tables[index], keys = table.keyColumns.count
        let values = arguments.dropFirst(3)
        journal.append((index, buffers[index].bytes.count, buffers[index].count, events))
        if first == 0 { events += 1 }
        switch kind {
        case .insert, .insertContinued:
            guard values.count >= keys else { return "vein_record: bad call" }
            let cells = values.dropFirst(keys)
            buffers[index].beginEntry(kind)
            for key in values.prefix(keys) { buffers[index].appendCell(key!) }
            buffers[index].appendVarint(UInt64(cells.count))
            for (offset, cell) in cells.enumerated() {
                buffers[index].appendVarint(UInt64(first + offset))
                buffers[index].appendCell(cell!)
            }
        case .update:
            guard values.count >= 2 * keys, (values.count - 2 * keys) % 2 == 0 else { return "vein_record: bad call" }
            let oldKey = values.prefix(keys), newKey = values.dropFirst(keys).prefix(keys)
            guard zip(oldKey, newKey).allSatisfy({ Self.same($0!, $1!) }) else {
                return "the change log cannot record a change of a row's key (\(table.name))"
            }
            let pairs = values.dropFirst(2 * keys)
            let changed = stride(from: pairs.startIndex, to: pairs.endIndex, by: 2).filter { !Self.same(pairs[$0]!, pairs[$0 + 1]!) }
            guard !changed.isEmpty else { return nil }
            buffers[index].beginEntry(.update)
            for key in newKey { buffers[index].appendCell(key!) }
            buffers[index].appendVarint(UInt64(changed.count))
            for position in changed {
                buffers[index].appendVarint(UInt64(first + (position - pairs.startIndex) / 2))
                buffers[index].appendCell(pairs[position + 1]!)
            }
        case .delete:
            guard values.count >= keys, (values.count - keys) % 2 == 0 else { return "vein_record: bad call" }
            buffers[index].beginEntry(.delete)
            for key in values.prefix(keys) { buffers[index].appendCell(key!) }
            let preserved = values.dropFirst(keys)
            buffers[index].appendVarint(UInt64(preserved.count / 2))
            for position in stride(from: preserved.startIndex, to: preserved.endIndex, by: 2) {
                buffers[index].appendVarint(UInt64(sqlite3_value_int64(preserved[position]!)))
                buffers[index].appendCell(preserved[position + 1]!)
            }
        }
        return nil
    }

    // MARK: Recording what Vein writes with triggers off

    /// The index of a logged table for `begin`; nil for a table the log does not cover.
    package func tableIndex(_ name: String) -> Int? { tableIndexes[name] }

    /// Begins the record of one row write that runs with the triggers off (`recordingDirectly`): the
    /// row's id, then `count` cells appended with `append` as the writer binds them (one copy of each
    /// value serves both). Begun before the row's statement runs: if it fails, the save it belongs to fails
    /// whole, and the record goes with the savepoint or transaction rolled back (`undo(to:)`, rollback).
    package func begin(_ kind: ChangeKind, table index: Int, idUTF8 id: UnsafeBufferPointer<UInt8>, count: Int) {
        guard !isPaused else { return }
        journal.append((index, buffers[index].bytes.count, buffers[index].count, events))
        buffers[index].beginEntry(kind)
        buffers[index].appendText(utf8: id)
        buffers[index].appendVarint(UInt64(count))
    }

    package func begin(_ kind: ChangeKind, table index: Int, id: String, count: Int) {
        var id = id
        id.withUTF8 { begin(kind, table: index, idUTF8: $0, count: count) }
    }

    /// One cell of the record `begin` began: the value column's index and its value as stored.
    package func append(table index: Int, column: Int, _ value: Value) {
        guard !isPaused else { return }
        buffers[index].appendVarint(UInt64(column))
        buffers[index].appendCell(value)
    }

    package func append(table index: Int, column: Int, _ value: DatabaseValue) {
        guard !isPaused else { return }
        buffers[index].appendVarint(UInt64(column))
        buffers[index].appendCell(value)
    }

    package func append(table index: Int, column: Int, _ value: Int64?) {
        guard !isPaused else { return }
        buffers[index].appendVarint(UInt64(column))
        if let value { buffers[index].appendCell(.integer(value)) } else { buffers[index].appendCell(DatabaseValue.null) }
    }

    /// Runs `body`, a save's row writes, with the triggers off: each write records itself through
    /// `begin` and `append`, which costs far less than a trigger per row (SQLCipher encrypts the statement journal a
    /// trigger makes every statement keep).
    package func recordingDirectly<T>(on database: Database, _ body: () throws -> T) throws -> T {
        try database.withTriggersOff(body)
    }

    /// The same value as SQLite stores it: type and bytes.
    private static func same(_ a: OpaquePointer, _ b: OpaquePointer) -> Bool {
        let type = sqlite3_value_type(a)
        guard type == sqlite3_value_type(b) else { return false }
        switch type {
        case SQLITE_NULL: return true
        case SQLITE_INTEGER: return sqlite3_value_int64(a) == sqlite3_value_int64(b)
        case SQLITE_FLOAT: return sqlite3_value_double(a).bitPattern == sqlite3_value_double(b).bitPattern
        case SQLITE_TEXT:
            let pa = UnsafeRawPointer(sqlite3_value_text(a)), na = Int(sqlite3_value_bytes(a))
            let pb = UnsafeRawPointer(sqlite3_value_text(b)), nb = Int(sqlite3_value_bytes(b))
            return na == nb && (na == 0 || memcmp(pa!, pb!, na) == 0)
        default:
            let pa = sqlite3_value_blob(a), na = Int(sqlite3_value_bytes(a))
            let pb = sqlite3_value_blob(b), nb = Int(sqlite3_value_bytes(b))
            return na == nb && (na == 0 || memcmp(pa!, pb!, na) == 0)
        }
    }

    // MARK: TransactionObserver

    package var mark: Int { journalBase + journal.count }

    package func undo(to mark: Int) {
        // Entries written out early (`statementDidFinish`) were written between statements outside any
        // savepoint, so no mark taken since reaches back past them.
        while journalBase + journal.count > max(mark, journalBase), let last = journal.popLast() {
            buffers[last.table].truncate(toLength: last.length, count: last.count)
            events = last.events
        }
    }

    package func transactionDidRollBack() { forget() }

    package var hasUnwrittenChanges: Bool { events > 0 || !journal.isEmpty || token != nil }

    package func temporarySchemaWasCleared(_ database: Database) throws { try installTriggers(on: database) }

    /// A large transaction (an import) writes its parts as it goes, so the recorder's memory stays
    /// bounded: between statements, outside savepoints, when the buffers pass `spillBytes`.
    package func statementDidFinish(_ database: Database) throws {
        guard !isWriting, database.savepointDepth == 0, database.isInTransaction,
              buffers.reduce(0, { $0 + $1.bytes.count }) >= Self.spillBytes else { return }
        try writeParts(database)
        journalBase += journal.count
        journal.removeAll(keepingCapacity: true)
    }

    /// Buffered bytes past which a transaction's parts are written before its commit.
    static let spillBytes = 8 << 20

    /// The recording triggers of every table (those already there are kept).
    private func installTriggers(on database: Database) throws {
        for (index, table) in tables.enumerated() {
            for sql in Self.recordingTriggers(for: table, index: index) { try database.execute(sql) }
        }
    }

    private func forget() {
        for i in buffers.indices where !buffers[i].isEmpty { buffers[i].removeAll() }
        journal.removeAll(keepingCapacity: true)
        journalBase = 0
        events = 0
        token = nil
        part = 0
        bytesWritten = 0
    }

    package func willCommit(_ database: Database) throws {
        guard hasUnwrittenChanges else { return }
        try writeParts(database)
        try database.execute(#"UPDATE "\#(ChangeLogSchema.state)" SET "logged" = "writes""#)
        if token != nil {
            isWriting = true
            defer { isWriting = false }
            let retention = try ChangeLogRetention.current(in: database)
            try retention.noteWritten(bytesWritten, in: database)
            try retention.apply(in: database)
        }
        forget()
    }

    /// Writes the buffered changes as parts of this transaction's record, which is made first when it
    /// is not yet (after an `outside` record, when the counter says another program wrote since the last).
    private func writeParts(_ database: Database) throws {
        guard buffers.contains(where: { !$0.isEmpty }) || token == nil else { return }
        isWriting = true
        defer { isWriting = false }
        func append(_ kind: TransactionKind, detail: String?) throws -> Int64 {
            // Another program's writes have no author Vein knows.
            try ChangeLogSchema.appendRecord(in: database, kind: kind, replica: kind == .outside ? replica : merging?.replica ?? replica,
                                             author: kind == .outside ? nil : contextAuthor ?? author,
                                             schemaVersion: schemaVersion, detail: detail, after: merging?.clock)
        }
        if token == nil {
            let state = try database.rows(#"SELECT "writes", "logged" FROM "\#(ChangeLogSchema.state)""#)
            guard let row = state.first, let writes = row[0].int64, let logged = row[1].int64 else {
                throw ChangeLogError.damaged("\(ChangeLogSchema.state) has no counter row")
            }
            // Row writes the counting triggers saw and this log did not: another program wrote to the store.
            let outside = writes - Int64(events) - logged
            if outside != 0 { _ = try append(.outside, detail: String(outside)) }
            guard buffers.contains(where: { !$0.isEmpty }) else { return }
            token = try append(.changes, detail: nil)
        }
        for index in buffers.indices where !buffers[index].isEmpty {
            part += 1
            let columns = "[" + tables[index].columns.map { "\"\($0)\"" }.joined(separator: ",") + "]"
            bytesWritten += buffers[index].bytes.count
            try database.execute(#"INSERT INTO "\#(ChangeLogSchema.changes)" ("token", "part", "tableName", "columns", "count", "changes") VALUES (?, ?, ?, ?, ?, ?)"#,
                                 [.integer(token!), .integer(part), .text(tables[index].name), .text(columns),
                                  .integer(Int64(buffers[index].count)), .blob(Data(buffers[index].bytes))])
            buffers[index].removeAll()
        }
    }

    // MARK: Migrations

    /// Records `manifest`'s tables from now on (after a migration this connection ran committed).
    package func adopt(_ manifest: SchemaManifest, on database: Database) throws {
        precondition(journal.isEmpty, "a recorder adopts a schema between transactions")
        for table in tables {
            for letter in ["i", "u", "d"] {
                try database.execute("DROP TRIGGER IF EXISTS temp.\(SQL.quoteIdentifier("_vein_record_\(letter)_\(table.name)"))")
            }
        }
        tables = LoggedTable.all(in: manifest)
        schemaVersion = manifest.version.description
        buffers = Array(repeating: ChangeBytesWriter(), count: tables.count)
        try installTriggers(on: database)
    }

    /// Runs `body` (a migration's stages) without recording its row changes: the migration is one
    /// schema record, which the migrator writes.
    package func paused<T>(_ body: () throws -> T) rethrows -> T {
        isPaused = true
        defer { isPaused = false }
        return try body()
    }
}

/// What a transaction record is (docs/history.md#transactions).
package enum TransactionKind: String, Sendable {
    /// Row changes made through Vein.
    case changes
    /// A migration: `detail` holds the versions and the plan's checksum.
    case schema
    /// Row writes another program made between two commits of Vein's: `detail` holds how many.
    case outside
}
