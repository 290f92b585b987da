import CSQLCipher

extension Database {
    /// Calls `observer` with the SQL of each statement as it starts to run (SQLite's statement trace),
    /// until called with nil: how tests prove what a fetch reads (statements counted, not timed).
    package func traceStatements(_ observer: ((String) -> Void)?) {
        guard let observer else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            statementTracer = nil
            return
        }
        let tracer = StatementTracer(observer)
        statementTracer = tracer
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
            guard let context, let statement, let sql = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
            Unmanaged<StatementTracer>.fromOpaque(context).takeUnretainedValue().observer(String(cString: sql))
            return 0
        }, Unmanaged.passUnretained(tracer).toOpaque())
    }
}

/// The observer of `Database.traceStatements`, as SQLite's trace callback finds it.
final class StatementTracer {
    let observer: (String) -> Void
    init(_ observer: @escaping (String) -> Void) { self.observer = observer }
}
