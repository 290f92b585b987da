extension ObjectContext {
    /// Records a failure where it cannot be thrown: a write to a deleted or detached object in a typed
    /// model's property setter, or VeinCore's `insert` and `delete`, which do not throw (SwiftData's do
    /// not). The caller has made nothing of the failed operation; the next `save` throws `error` itself,
    /// so the app catches the same typed error the operation would have thrown.
    package func noteDeferredFailure(_ error: any Error) {
        lock.withLock { pending.noteDeferredFailure(error) }
    }

    /// A failure is recorded: the next `save` throws it (VeinCore's `hasChanges` is then true).
    package var hasDeferredFailures: Bool { lock.withLock { pending.hasDeferredFailures } }

    /// Throws the first recorded failure, once: the save that reports it writes nothing, and the context
    /// is left as it was (the failed operation never became a change), so the next save can succeed.
    func throwDeferredFailures() throws {
        if let first = pending.takeDeferredFailure() { throw first }
    }
}
