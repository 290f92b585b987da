extension ObjectContext {
    /// Calls `observer` with each statement the context's connection runs, until called with nil
    /// (`Database.traceStatements`): tests count what a fetch reads.
    package func traceStatements(_ observer: ((String) -> Void)?) throws {
        try lock.withLock { try database.traceStatements(observer) }
    }
}
