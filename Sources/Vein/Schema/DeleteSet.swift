/// The temporary table a save fills with the ids it deletes, so that delete rules, reference checks and
/// the row deletes each run as one statement over the whole set, through the indexes (docs/store-format.md).
///
/// A row is `(model, id, round)`: the first round holds the rows deleted by the caller, round n + 1
/// what the `cascade` rules added from round n. Keyed by (model, id), and indexed by (model, round), so
/// the ids of one model, and of one round of it, are one seek whatever else the set holds: a context
/// adds the deletes of each statement as rounds of their own after the ones it already holds
/// (`ObjectContext.applyDeleteRules`).
package enum DeleteSet {
    package static let table = "temp.\"_vein_deleted\""
    package static let createSQL = "CREATE TEMP TABLE IF NOT EXISTS \"_vein_deleted\" (\"model\" TEXT NOT NULL, \"id\" TEXT NOT NULL, "
        + "\"round\" INTEGER NOT NULL, PRIMARY KEY (\"model\", \"id\")); "
        + "CREATE INDEX IF NOT EXISTS temp.\"_vein_deleted_rounds\" ON \"_vein_deleted\" (\"model\", \"round\", \"id\")"
    /// Inserts the rows deleted by the caller: this, then `insertedRow` once per row (model, id and
    /// round bound).
    package static let insertSQL = "INSERT OR IGNORE INTO \(table) (\"model\", \"id\", \"round\")"
    package static let insertedRow = "(?, ?, ?)"

    /// An SQL subquery: the ids of `model` in the set (of one round, an SQL expression, when given).
    package static func ids(of model: String, round: String? = nil) -> String {
        "(SELECT \"id\" FROM \(table) WHERE \"model\" = \(SQL.quoteString(model))" + (round.map { " AND \"round\" = \($0)" } ?? "") + ")"
    }

    /// An SQL subquery: the ids of `model` from the round `round` (an SQL expression) on.
    package static func ids(of model: String, fromRound round: String) -> String {
        "(SELECT \"id\" FROM \(table) WHERE \"model\" = \(SQL.quoteString(model)) AND \"round\" >= \(round))"
    }
}
