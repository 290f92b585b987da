/// What a logged change did to a row (docs/history.md#changes). The raw values are the log's bytes.
package enum ChangeKind: UInt8, Sendable {
    /// A new row: every column it was written with.
    case insert = 1
    /// A stored row: the columns whose values changed, with their new values.
    case update = 2
    /// A row removed: its key, and the values of the fields that keep theirs (`preserveValueOnDeletion`).
    case delete = 3
    /// More columns of the insert just before it (a table too wide for one call of the logging function).
    case insertContinued = 4
}
