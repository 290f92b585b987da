import CSQLCipher
import Foundation

/// A prepared statement. Owned by one `Database`; reuse it through `Database.cachedStatement(_:)` so
/// the SQL is compiled once per connection.
///
/// Invariant: between uses the statement is reset and its bindings cleared, so a cached statement never
/// carries a previous caller's values or holds a read transaction open.
package final class Statement {
    let handle: OpaquePointer
    /// Unowned: the database owns its cached statements; a strong reference back would keep every
    /// connection open forever (and leave -wal and -shm files beside the store).
    unowned let database: Database
    package let sql: String
    /// SQLite's own answer: this statement cannot change the database. Only others are watched by the
    /// connection's `TransactionObserver`.
    private let isReadOnly: Bool

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw database.lastError(rc, sql: sql)
        }
        self.handle = stmt
        self.database = database
        self.sql = sql
        self.isReadOnly = sqlite3_stmt_readonly(stmt) != 0
    }

    deinit { sqlite3_finalize(handle) }

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }
    package func columnName(_ index: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(index))) }

    // MARK: Binding (1-based indexes, as in SQLite)

    package func bind(_ value: DatabaseValue, at index: Int) throws {
        let i = Int32(index)
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, i)
        case .integer(let v): rc = sqlite3_bind_int64(handle, i, v)
        case .real(let v): rc = sqlite3_bind_double(handle, i, v)
        case .text(let v): return try bind(text: v, at: index)
        case .blob(let v):
            rc = v.withUnsafeBytes { raw in
                // A zero-length blob must still bind as a blob, not NULL: pass a non-nil pointer.
                sqlite3_bind_blob64(handle, i, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(raw.count),
                                    vein_sqlite_transient())
            }
        }
        guard rc == SQLITE_OK else { throw database.lastError(rc, sql: sql) }
    }

    package func bind(_ values: [DatabaseValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    package func bindInt64(_ value: Int64, at index: Int) {
        sqlite3_bind_int64(handle, Int32(index), value)
    }

    // MARK: Stepping

    /// Advances; returns true when a row is available.
    @discardableResult
    package func step() throws -> Bool {
        let mark = isReadOnly ? nil : database.transactionObserver?.mark
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            if mark != nil { try database.transactionObserver?.statementDidFinish(database) }
            return false
        default:
            let error = database.lastError(rc, sql: sql)
            sqlite3_reset(handle)
            // SQLite undid the statement's own changes (or the whole transaction): so does the observer.
            if let mark { database.transactionObserver?.undo(to: mark) }
            // Raised by a SQL function written in Swift: the typed error its group reads back from the message.
            for group in database.functionGroups {
                if let typed = group.error(fromMessage: error.message) { throw typed }
            }
            throw error
        }
    }

    /// Resets and clears bindings: the statement is ready for its next use.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Reading (0-based column indexes, as in SQLite)

    package func isNull(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }
    /// SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL: how the cell is stored,
    /// which in SQLite need not be its column's declared type.
    package func storageClass(_ column: Int) -> Int32 { sqlite3_column_type(handle, Int32(column)) }
    package func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }
    package func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }
    package func string(_ column: Int) -> String {
        guard let text = sqlite3_column_text(handle, Int32(column)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
    /// A text column's bytes without copying them. Valid only until the next `step`, `reset` or read of
    /// the same column as another type.
    func textBytes(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        guard let text = sqlite3_column_text(handle, Int32(column)) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, Int32(column))))
    }
    /// Whether a TEXT cell holds exactly the bytes of `text`, read in place (no string is made).
    func isText(_ column: Int, equalTo text: String) -> Bool {
        guard storageClass(column) == SQLITE_TEXT else { return false }
        let cell = textBytes(column)
        var text = text
        return text.withUTF8 { own in
            own.count == cell.count && (own.isEmpty || memcmp(own.baseAddress!, cell.baseAddress!, own.count) == 0)
        }
    }
    package func data(_ column: Int) -> Data {
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard count > 0, let blob = sqlite3_column_blob(handle, Int32(column)) else { return Data() }
        return Data(bytes: blob, count: count)
    }

    package func value(_ column: Int) -> DatabaseValue {
        switch sqlite3_column_type(handle, Int32(column)) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_TEXT: return .text(string(column))
        case SQLITE_BLOB: return .blob(data(column))
        default: return .null
        }
    }

    /// All remaining rows as arrays of values, then reset. For small result sets.
    package func rows(_ arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        defer { reset() }
        try bind(arguments)
        var result: [[DatabaseValue]] = []
        let n = columnCount
        while try step() { result.append((0..<n).map(value)) }
        return result
    }

    /// Runs the statement to completion for its effect, then resets.
    package func execute(_ arguments: [DatabaseValue] = []) throws {
        defer { reset() }
        try bind(arguments)
        while try step() {}
    }
}
