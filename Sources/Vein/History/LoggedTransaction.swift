import Foundation

/// One transaction record of a store's change log, with its changes (docs/history.md#transactions).
package struct LoggedTransaction: Equatable, Sendable {
    /// Orders commits in this store: each is greater than every token before it, and never reused.
    package let token: Int64
    package let kind: TransactionKind
    /// The store file (replica) that made the commit.
    package let replica: String
    /// A hybrid logical clock time (`HybridClock`).
    package let clock: Int64
    package let author: String?
    package let schemaVersion: String
    /// `.schema`: the stage and its plan's checksum; `.outside`: how many row writes the log misses.
    package let detail: String?
    package var parts: [LoggedPart]

    package var date: Date { HybridClock.date(of: clock) }
}

/// One table's changes in one transaction, as the log keeps them: one row of `_vein_changes`.
package struct LoggedPart: Equatable, Sendable {
    package let tableName: String
    /// The table's columns when the change was made: the key's first (`_id`, or a link table's `owner`
    /// and `target`), then the values the changes index.
    package let columns: [String]
    package var changes: [LoggedChange]

    package var keyColumns: ArraySlice<String> { columns.prefix(keyCount) }
    package var valueColumns: ArraySlice<String> { columns.dropFirst(keyCount) }
    package var keyCount: Int { columns.first == StoreFormat.current.keyColumn ? 1 : 2 }
    /// A link table's part (`_vein_link_…`), rather than a model's.
    package var isLinkTable: Bool { tableName.hasPrefix(RelationshipStorage.linkTablePrefix) }
}
