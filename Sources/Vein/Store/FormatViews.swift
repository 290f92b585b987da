/// Reads a store of the format before this build's as if it were current: on one connection, a
/// temporary view per model table and one for the migrations table, named as the current format names
/// them (SQLite looks a name up in `temp` before `main`), so every query of the engine runs on it
/// unchanged. Nothing is written to the file, and the store is never written while it is in this format
/// (`StoreError.needsUpgrade`).
enum FormatViews {
    static func install(on database: Database, _ manifest: SchemaManifest, from format: StoreFormat) throws {
        let q = SQL.quoteIdentifier
        for model in manifest.models {
            let columns = SchemaDDL.storedColumns(model, in: manifest).map(q)
            let list = (["\(q(format.keyColumn)) AS \(StoreFormat.key)"] + columns).joined(separator: ", ")
            try database.execute("CREATE TEMP VIEW \(q(model.name)) AS SELECT \(list) FROM main.\(q(model.name))")
        }
        try database.execute("CREATE TEMP VIEW \(StoreFormat.migrations) AS SELECT * FROM main.\(q(format.migrationsTable))")
    }
}
