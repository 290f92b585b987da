import CSQLCipher

extension Database {
    /// Closes a connection whose file must be whole on its own afterwards: a new file about to be linked
    /// or renamed into place. `close` alone is not enough: when its checkpoint fails (a full disk)
    /// SQLite keeps the committed pages in the `-wal` and still reports success, and the WAL does not
    /// follow the file to its new name. Here the checkpoint's own answer is checked (busy, or frames left
    /// unwritten) before the connection closes.
    package func closeCheckpointed() throws {
        try checkpointCompletely()
        try close()
    }

    /// Checkpoints the WAL into the file and truncates it, failing unless every frame was written: a
    /// store about to be replaced must leave no frames behind that would be read as the new file's.
    package func checkpointCompletely() throws {
        let sql = "PRAGMA wal_checkpoint(TRUNCATE)"
        if let row = try rows(sql).first, row.count == 3 {
            let busy = row[0].int64 ?? 1, logged = row[1].int64 ?? 0, written = row[2].int64 ?? -1
            guard busy == 0, logged == written else {
                throw DatabaseError(extendedCode: busy != 0 ? SQLITE_BUSY : SQLITE_IOERR,
                                    message: "the write-ahead log could not be merged into the file (\(written) of \(logged) pages written)", sql: sql)
            }
        }
    }

    /// `SELECT sqlcipher_export(schema)`. SQLCipher reports a failure of the copy (a full disk) as a
    /// generic SQLITE_ERROR carrying the real error's text; that text is mapped back to its code here so a
    /// full disk is an I/O error, not an unexpected one.
    func sqlcipherExport(into schema: String) throws {
        do {
            _ = try scalar("SELECT sqlcipher_export(\(SQL.quoteString(schema)))")
        } catch let error as DatabaseError where error.code == SQLITE_ERROR {
            for code in [SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_BUSY, SQLITE_CORRUPT]
            where error.message == String(cString: sqlite3_errstr(code)) {
                throw DatabaseError(extendedCode: code, message: error.message, sql: error.sql)
            }
            throw error
        }
    }
}
