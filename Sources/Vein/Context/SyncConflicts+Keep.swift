/// Resolving a unique-value conflict (docs/sync.md#unique-values): here rather than in `Sync` because
/// keeping the set-aside row deletes the row that holds its value, with that row's delete rules, which
/// only a context applies.
extension SyncConflicts {
    package enum Side: String, CaseIterable, Sendable {
        /// The row the store holds: the set-aside row is deleted.
        case mine
        /// The set-aside row: the rows that hold its values are deleted (with their delete rules), and it
        /// comes back.
        case theirs
    }

    /// Resolves the conflict of set-aside row `id` as this replica's own commit, which the next sync sends.
    package func keep(_ side: Side, id: String) throws {
        switch side {
        case .mine:
            try discard(id)
        case .theirs:
            let conflict = try conflict(id)
            let context = ObjectContext(store: store)
            for holder in conflict.holders {
                if let object = try context.object(conflict.model, id: holder) { try context.delete(object) }
            }
            try context.save()
            try settle()
        }
    }
}
