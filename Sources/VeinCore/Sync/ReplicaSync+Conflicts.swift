import Vein

/// Unique-value conflicts as an app sees them (docs/sync.md#unique-values): when two replicas give one
/// unique value to two rows, the row that claimed it first stays and the other is set aside whole, out of
/// every fetch, until its value is free or the app resolves it.
extension ReplicaSync {
    /// A row set aside for a unique value.
    public struct Conflict: Sendable, Equatable {
        /// The row set aside.
        public let row: PersistentIdentifier
        /// The rows of the store that hold its unique values.
        public let heldBy: [PersistentIdentifier]
        /// The unique fields whose values they hold.
        public let fields: [String]
    }

    /// Which row of a conflict stays.
    public enum Keep: Sendable {
        /// The row the store holds: the set-aside row is deleted.
        case stored
        /// The set-aside row: the rows that hold its values are deleted (with their delete rules), and it
        /// comes back with its fields and links.
        case setAside
    }

    /// The rows set aside now.
    public func conflicts() throws -> [Conflict] {
        try onQueue { try listConflicts() }
    }

    /// Resolves `conflict` as a commit of this replica, which the sync sends like any save, so every
    /// replica resolves it alike.
    public func resolve(_ conflict: Conflict, keeping keep: Keep) throws {
        try onQueue {
            try SyncConflicts(store: session.store).keep(keep == .stored ? .mine : .theirs, id: conflict.row.key)
            announceMerged()
        }
    }

    func listConflicts() throws -> [Conflict] {
        try SyncConflicts(store: session.store).list().map { conflict in
            Conflict(row: PersistentIdentifier(entityName: conflict.model, key: conflict.id),
                     heldBy: conflict.holders.map { PersistentIdentifier(entityName: conflict.model, key: $0) },
                     fields: conflict.contested.map(\.name))
        }
    }
}
