extension ObjectContext {
    /// The store's change log after `token` (all of it for nil), in token order, read on this context's
    /// connection in one read transaction (docs/history.md). Throws `ChangeLogError.notKept` for a store
    /// that keeps none.
    package func changeLog(after token: Int64? = nil) throws -> [LoggedTransaction] {
        try lock.withLock {
            let database = try database
            return try database.transaction(.deferred) {
                var reader = ChangeLogReader()
                reader.afterToken = token
                return try reader.transactions(in: database)
            }
        }
    }
}

extension ObjectContext {
    /// Removes the log's transactions through `token`, in a write transaction of this context's connection
    /// (SwiftData's `deleteHistory`; docs/history.md#pruning). Returns how many went.
    @discardableResult
    package func pruneChangeLog(through token: Int64) throws -> Int {
        try lock.withLock {
            let database = try database
            return try database.transaction(.immediate) { try ChangeLogPruning.prune(in: database, through: token) }
        }
    }
}

extension ObjectContext {
    /// The last token the store's log was pruned through, nil when it never was.
    package func changeLogPrunedThrough() throws -> Int64? {
        try lock.withLock {
            let database = try database
            return try database.transaction(.deferred) { try ChangeLogPruning.prunedThrough(in: database)?.token }
        }
    }

    /// This store file's replica id, which its history tokens carry.
    package func changeLogReplica() throws -> String? {
        try lock.withLock { try ChangeLogSchema.replica(in: try database) }
    }
}

extension ObjectContext {
    /// The newest commit the store's log holds (or was pruned through) and this file's replica id, read in
    /// the caller's transaction when there is one; nil when the store keeps no log. What a live query's
    /// results reflect, for an app to resume from after it restarts.
    package func changeLogPosition() throws -> (replica: String, token: Int64)? {
        try lock.withLock {
            let database = try database
            guard try ChangeLogSchema.isKept(in: database) else { return nil }
            return (try ChangeLogSchema.replica(in: database) ?? "", try ChangeLogSchema.newestCommit(in: database).token)
        }
    }
}
