/// Tells the process what a context's saves wrote (`StoreChangeCenter`), once the store holds it: a save's
/// models at its own commit; inside a `transaction`, at the commit of the outermost one, and never if that
/// rolls back. The context posts what it is given to announce after releasing its lock where the caller
/// holds none, so that an observer may use the context at once.
///
/// Its state is its own: the context tells it, under its lock, what committed or rolled back.
struct SaveAnnouncer {
    /// Models written by saves inside a `transaction` not yet committed.
    private var unannounced: Set<String> = []

    /// A save wrote `models`: returns what to announce now, all of them when the save committed them
    /// itself, none when it ran inside a `transaction` (they wait for its commit).
    mutating func saved(_ models: Set<String>, insideTransaction: Bool) -> Set<String> {
        guard insideTransaction else { return models }
        unannounced.formUnion(models)
        return []
    }

    /// The outermost `transaction` committed: returns the models its saves wrote, to announce now.
    mutating func transactionCommitted() -> Set<String> {
        defer { unannounced = [] }
        return unannounced
    }

    /// The outermost `transaction` rolled back: what its saves wrote never reached the store.
    mutating func transactionRolledBack() { unannounced = [] }

    /// Tells the process that `models` were committed to the store at `storeRealPath` (nil: a context over
    /// a bare connection, such as a migration's, whose work is announced by no one).
    static func announce(_ models: Set<String>, storeAt storeRealPath: String?) {
        guard let storeRealPath, !models.isEmpty else { return }
        StoreChangeCenter.shared.post(StoreChange(models: models), storeAt: storeRealPath)
    }

    /// Tells the observers of `context`'s rollbacks which models the discarded changes were of (their
    /// objects are detached).
    static func announceRollback(_ models: Set<String>, of context: ObjectContext) {
        guard !models.isEmpty else { return }
        StoreChangeCenter.shared.postRollback(StoreChange(models: models), of: context)
    }
}
