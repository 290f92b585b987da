extension Store {
    /// Closes the store's own connection after merging the write-ahead log into the file: the last
    /// connection to close removes the `-wal`, so a closed store is one self-contained file. Close the
    /// contexts' connections first (`ObjectContext.close`). A checkpoint another connection still blocks
    /// (another container or process on the same file) is left to the last one to close.
    package func close() throws {
        guard !database.isClosed else { return }
        if connectionMode != .immutable { try? database.checkpointCompletely() }
        try database.close()
    }

    package var isClosed: Bool { database.isClosed }
}
