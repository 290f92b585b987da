/// What live queries and other observers of a context ask of it (its saves are announced by `SaveAnnouncer`).
extension ObjectContext {
    /// Whether the context's connection is inside a transaction (a `transaction` body runs, on the thread
    /// holding the lock): what it reads there is not committed and may yet be rolled back.
    package var isInTransaction: Bool {
        lock.withLock { interruptTarget?.isInTransaction == true }
    }

    /// The store's path as its user gave it, for messages.
    package var storePath: String { path }

    /// SQLite's `PRAGMA data_version` on this context's connection: it changes when another connection
    /// (another context, another process) commits to the file, never for this connection's own commits.
    /// Read inside a `transaction`, it names the snapshot that transaction reads.
    package func dataVersion() throws -> Int64 {
        try lock.withLock { try database.scalar("PRAGMA data_version")?.int64 ?? 0 }
    }
}

extension ModelObject {
    /// The values as this context holds them now, columns not loaded (lazy fields, to-many lists) as
    /// null: what a live query compares to tell whether a re-read changed its rows.
    package var heldValues: [Value] {
        guard let owner else { return [] }
        return owner.lock.withLock {
            layout.columns.indices.map { unloaded.contains($0) ? .null : self[column: $0] }
        }
    }
}
