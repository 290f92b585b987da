/// The temporary table a save fills with the ids it deletes, so that delete rules, reference checks and
/// the row deletes each run as one statement over the whole set, through the indexes (SPEC §2).
///
/// A row is `(model, id, round)`: round 0 holds the rows deleted by the caller, round n + 1 what the
/// `cascade` rules added from round n. Keyed by (model, id), so the ids of one model, and of one round
/// of it, are one seek.
package enum DeleteSet {
    package static let table = "temp.\"_vein_deleted\""
    package static let createSQL = "CREATE TEMP TABLE IF NOT EXISTS \"_vein_deleted\" (\"model\" TEXT NOT NULL, \"id\" TEXT NOT NULL, "
        + "\"round\" INTEGER NOT NULL, PRIMARY KEY (\"model\", \"id\"))"
    /// Inserts round-0 rows: this, then `insertedRow` once per row (model and id bound).
    package static let insertSQL = "INSERT OR IGNORE INTO \(table) (\"model\", \"id\", \"round\")"
    package static let insertedRow = "(?, ?, 0)"

    /// An SQL subquery: the ids of `model` in the set (of one round, an SQL expression, when given).
    package static func ids(of model: String, round: String? = nil) -> String {
        "(SELECT \"id\" FROM \(table) WHERE \"model\" = \(SQL.quoteString(model))" + (round.map { " AND \"round\" = \($0)" } ?? "") + ")"
    }
}
