import CSQLCipher

/// Raw SQL that only reads, for what the expression language cannot say (the REPL's `.sql`).
public enum ReadOnlySQLError: Error, Equatable, Sendable {
    /// Not a SELECT, WITH or VALUES, or the statement does more than read.
    case writes(String)
    /// More than one statement in the text.
    case severalStatements
}

extension Database {
    /// Statements that may be prepared at all. SQLCipher runs `PRAGMA key`/`rekey` while it prepares them
    /// (also behind `EXPLAIN`, which is therefore not among them), so the first word is checked before SQLite
    /// sees the text; while it prepares, `readingOnly` refuses every action but reading; and
    /// `sqlite3_stmt_readonly` then checks the whole.
    static let readingKeywords: Set<String> = ["select", "with", "values"]

    /// The authorizer of a raw read: reading tables and calling functions, nothing else — no PRAGMA (key,
    /// rekey), ATTACH, temp tables, writes — and none of SQLCipher's own functions (`sqlcipher_export`
    /// writes a copy of every table, which `sqlite3_stmt_readonly` does not see). Installed once per
    /// connection and switched by `ReadingGuard.active`: each `sqlite3_set_authorizer` call expires every
    /// prepared statement of the connection (the statement cache's too), so it is not called per read.
    private static let readingOnly: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?,
                                                    UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = {
        state, action, _, function, _, _ in
        guard let state else { return SQLITE_OK }
        let guarded = Unmanaged<ReadingGuard>.fromOpaque(state).takeUnretainedValue()
        guard guarded.active else { return SQLITE_OK }
        let allowed: Bool
        switch action {
        case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE: allowed = true
        case SQLITE_FUNCTION:
            let name = function.map { String(cString: $0).lowercased() } ?? ""
            allowed = !name.hasPrefix("sqlcipher") && name != "load_extension"
        default: allowed = false
        }
        // Noted, so the refusal is told as "this writes" whatever error text SQLite gives it.
        if !allowed { guarded.refused = true }
        return allowed ? SQLITE_OK : SQLITE_DENY
    }

    /// The read-only authorizer's switch, installed on the first raw read (`Database.readingGuard`).
    private func installedReadingGuard() -> ReadingGuard {
        if let installed = readingGuard { return installed }
        let installed = ReadingGuard()
        readingGuard = installed  // the connection holds it: the callback's pointer stays valid
        sqlite3_set_authorizer(handle, Self.readingOnly, Unmanaged.passUnretained(installed).toOpaque())
        return installed
    }

    /// Runs one statement that reads, returning its column names and rows.
    public func readOnlyQuery(_ sql: String) throws -> (columns: [String], rows: [[DatabaseValue]]) {
        try requireReadsOnly(sql)
        let statement = try makeStatement(sql)
        let columns = (0..<statement.columnCount).map(statement.columnName)
        var rows: [[DatabaseValue]] = []
        while try statement.step() { rows.append((0..<columns.count).map(statement.value)) }
        return (columns, rows)
    }

    /// Throws unless `sql` is one statement that only reads (the checks `readOnlyQuery` makes before it
    /// runs it); a refusal names `shown` (the part the caller wrote), or else `sql`.
    ///
    /// With `arguments`, the statement's parameters are checked against them: only plain `?` (a numbered
    /// or named one would bind out of the caller's order), exactly `arguments` of them
    /// (`SQLConditionError`).
    package func requireReadsOnly(_ sql: String, shown: String? = nil, arguments: Int? = nil) throws {
        let first = sql.drop { $0.isWhitespace }.prefix { $0.isLetter }.lowercased()
        guard Self.readingKeywords.contains(first) else { throw ReadOnlySQLError.writes(shown ?? sql) }
        let guarded = installedReadingGuard()
        guarded.active = true
        guarded.refused = false
        defer { guarded.active = false }
        var prepared: OpaquePointer?, rest = ""
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(handle, text, -1, &prepared, &tail)
            rest = tail.map { String(cString: $0) } ?? ""  // it points into `text`, valid only here
            return rc
        }
        if guarded.refused || rc == SQLITE_AUTH {
            sqlite3_finalize(prepared)
            throw ReadOnlySQLError.writes(shown ?? sql)
        }
        guard rc == SQLITE_OK, let prepared else { throw lastError(rc, sql: sql) }
        let readOnly = sqlite3_stmt_readonly(prepared) != 0
        let parameters = Int(sqlite3_bind_parameter_count(prepared))
        let named = parameters == 0 ? nil : (1...parameters).lazy.compactMap { sqlite3_bind_parameter_name(prepared, Int32($0)) }.first.map { String(cString: $0) }
        sqlite3_finalize(prepared)
        if let arguments {
            if let named { throw SQLConditionError.namedParameter(shown ?? sql, parameter: named) }
            guard parameters == arguments else { throw SQLConditionError.argumentCount(shown ?? sql, parameters: parameters, arguments: arguments) }
        }
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else { throw ReadOnlySQLError.severalStatements }
        guard readOnly else { throw ReadOnlySQLError.writes(shown ?? sql) }
    }

    /// Stops the statement running on this connection (from a signal handler or another thread), as the
    /// sqlite3 shell does on Ctrl-C: it fails with SQLITE_INTERRUPT.
    public func interrupt() {
        sqlite3_interrupt(handle)
    }
}

/// Whether the read-only authorizer of a connection is checking a raw read now, and whether it refused
/// an action of it. Used only under the connection's one-thread-at-a-time rule.
final class ReadingGuard {
    var active = false
    var refused = false
}
