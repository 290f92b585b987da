extension ObjectContext {
    /// Notes whether another connection (another context of this process, another process) committed
    /// since the context last looked: the objects it holds from before may then be out of date, and the
    /// fetches from now on read them anew when they meet them (`isOutdated`). One pragma per fetch, so a
    /// fetch of rows nobody changed costs what it did.
    func noticeOtherWriters() throws {
        readClock.observe(dataVersion: try database.scalar("PRAGMA data_version")?.int64)
    }

    /// Whether a fetch meeting `object` takes the row's values as stored now: the object was read before
    /// another connection's commit and this context has not changed it. An object with unsaved changes
    /// keeps them (and `save` checks its row against what it read, as ever).
    func isOutdated(_ object: ModelObject) -> Bool {
        readClock.readBeforeOtherWriters(object) && hasNoUnsavedChange(object)
    }
}
