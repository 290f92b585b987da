/// Writes logged changes into a store (docs/history.md#replay): the rows a transaction changed, back to
/// what they were after it. A restore rebuilds a store this way, and the tests check that replaying the
/// log onto the state before it gives the state after it, byte for byte.
///
/// Each change is applied as recorded: an insert writes every column it was written with, an update the
/// columns that changed, a delete removes the row by its key. A link table's insert replaces the link it
/// names (the log records a replaced link as its new row).
package struct ChangeReplayer {
    private let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Applies `transaction`'s changes, part by part, in order. Inside the caller's transaction.
    package func apply(_ transaction: LoggedTransaction) throws {
        for part in transaction.parts { try apply(part) }
    }

    private func apply(_ part: LoggedPart) throws {
        for change in part.changes { try write(change, of: part) }
    }

    private func write(_ change: LoggedChange, of part: LoggedPart) throws {
        let q = SQL.quoteIdentifier
        let keys = Array(part.keyColumns), values = Array(part.valueColumns)
        let keyMatch = keys.map { "\(q($0)) = ?" }.joined(separator: " AND ")
        switch change.kind {
        case .insert, .insertContinued:
            let columns = keys + change.values.map { values[$0.column] }
            let verb = part.isLinkTable ? "INSERT OR REPLACE" : "INSERT"
            try database.execute("\(verb) INTO \(q(part.tableName)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(SQL.placeholders(columns.count)))",
                                 change.key + change.values.map(\.value))
        case .update:
            guard !change.values.isEmpty else { return }
            let sets = change.values.map { "\(q(values[$0.column])) = ?" }.joined(separator: ", ")
            try database.execute("UPDATE \(q(part.tableName)) SET \(sets) WHERE \(keyMatch)", change.values.map(\.value) + change.key)
            guard database.changes == 1 else { throw ChangeLogError.damaged("an update of \(part.tableName) names no row") }
        case .delete:
            try database.execute("DELETE FROM \(q(part.tableName)) WHERE \(keyMatch)", change.key)
            guard database.changes == 1 else { throw ChangeLogError.damaged("a delete of \(part.tableName) names no row") }
        }
    }
}
