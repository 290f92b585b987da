extension ObjectContext {
    /// Stops the statement running on this context's connection (a fetch a person gave up on: Ctrl-C in the
    /// REPL): the fetch throws `ContextError.interrupted`. Safe from a signal handler or another thread.
    public func interrupt() {
        // Nothing runs on a connection that is not open yet. No lock: see `interruptTarget`.
        interruptTarget?.interrupt()
    }

    /// Runs a read an `interrupt()` may stop, turning SQLite's "interrupted" into the context's own error,
    /// which an app that imports VeinCore alone can name.
    func interruptible<T>(_ read: () throws -> T) throws -> T {
        do { return try read() } catch let error as DatabaseError where error.isInterrupted {
            throw ContextError.interrupted
        }
    }
}
