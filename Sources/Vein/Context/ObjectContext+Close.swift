extension ObjectContext {
    /// Closes the context's connection now, rather than when the context and its last object go away
    /// (`ModelContainer.close()` closes every context it made, so the store can drop its `-wal`). Unsaved
    /// changes are not saved. Afterwards objects still read the values they hold; anything that needs the
    /// store (a fetch, a save, a lazy field not read yet) throws `StoreError.closed`.
    public func close() throws {
        try lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            defer { connection = nil }
            try connection?.close()
        }
    }
}
