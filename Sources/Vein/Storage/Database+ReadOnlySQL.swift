import CSQLCipher

/// Raw SQL that only reads, for what the expression language cannot say (the REPL's `.sql`).
public enum ReadOnlySQLError: Error, Equatable, Sendable {
    /// Not a SELECT, WITH, VALUES or EXPLAIN, or SQLite says the statement writes.
    case writes(String)
    /// More than one statement in the text.
    case severalStatements
}

extension Database {
    /// Statements that may be prepared at all. SQLCipher runs `PRAGMA key`/`rekey` while it prepares them, so
    /// the first word is checked before SQLite sees the text; `sqlite3_stmt_readonly` then checks the rest.
    static let readingKeywords: Set<String> = ["select", "with", "values", "explain"]

    /// Runs one statement that reads, returning its column names and rows.
    public func readOnlyQuery(_ sql: String) throws -> (columns: [String], rows: [[DatabaseValue]]) {
        let first = sql.drop { $0.isWhitespace }.prefix { $0.isLetter }.lowercased()
        guard Self.readingKeywords.contains(first) else { throw ReadOnlySQLError.writes(sql) }
        var prepared: OpaquePointer?, rest = ""
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(handle, text, -1, &prepared, &tail)
            rest = tail.map { String(cString: $0) } ?? ""  // it points into `text`, valid only here
            return rc
        }
        guard rc == SQLITE_OK, let prepared else { throw lastError(rc, sql: sql) }
        let readOnly = sqlite3_stmt_readonly(prepared) != 0
        sqlite3_finalize(prepared)
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else { throw ReadOnlySQLError.severalStatements }
        guard readOnly else { throw ReadOnlySQLError.writes(sql) }
        let statement = try makeStatement(sql)
        let columns = (0..<statement.columnCount).map(statement.columnName)
        var rows: [[DatabaseValue]] = []
        while try statement.step() { rows.append((0..<columns.count).map(statement.value)) }
        return (columns, rows)
    }

    /// Stops the statement running on this connection (from a signal handler or another thread), as the
    /// sqlite3 shell does on Ctrl-C: it fails with SQLITE_INTERRUPT.
    public func interrupt() {
        sqlite3_interrupt(handle)
    }
}
