extension ObjectContext {
    /// Stops the statement running on this context's connection (a fetch a person gave up on: Ctrl-C in the
    /// REPL); it fails with SQLITE_INTERRUPT. Safe from a signal handler or another thread.
    public func interrupt() {
        // Nothing runs on a connection that is not open yet. No lock: see `interruptTarget`.
        interruptTarget?.interrupt()
    }
}
