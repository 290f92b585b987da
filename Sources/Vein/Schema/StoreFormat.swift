/// What a store format calls the things Vein keeps beside the app's data (docs/store-format.md): every
/// SQL statement names the row key and the migrations table through here, never as a literal, so a
/// format's names live in one place and an older format can be read by mapping its names onto these.
package struct StoreFormat: Equatable, Sendable {
    /// `_vein_meta.formatVersion`.
    package let version: Int
    /// The key column of every model table.
    package let keyColumn: String
    /// The table of applied migration stages.
    package let migrationsTable: String

    /// The format this build writes. Names starting with `_` belong to Vein, so a model may have a field
    /// named `id`.
    package static let current = StoreFormat(version: VeinVersion.storeFormat, keyColumn: "_id", migrationsTable: "_vein_migrations")

    /// The format before: readable as it is (through `FormatViews`), written only after `vein upgrade`.
    package static let upgradable = StoreFormat(version: 2, keyColumn: "id", migrationsTable: "_vein_history")

    /// The current key column, quoted for SQL.
    package static let key = SQL.quoteIdentifier(current.keyColumn)
    /// The current migrations table, quoted for SQL.
    package static let migrations = SQL.quoteIdentifier(current.migrationsTable)

    /// The name of a compound unique constraint's index: `Model._unique.a.b`. Its `_unique` part is
    /// Vein's (no field name starts with `_`), so it never equals a declared index's `Model.a.b`, which
    /// may list the same columns.
    package static func uniqueIndexName(model: String, columns: [String]) -> String {
        ([model, "_unique"] + columns).joined(separator: ".")
    }
}
