/// A table whose row changes the change log records (docs/history.md): a model's table, keyed by its id,
/// or a link table, keyed by (owner, target). Its columns are the rest, in table order. The log names
/// tables and columns, not positions in one schema, so a record stays readable after a migration.
package struct LoggedTable: Equatable, Sendable {
    package let name: String
    package let keyColumns: [String]
    package let valueColumns: [String]
    /// The value columns whose old values a delete keeps (fields marked `preserveValueOnDeletion`).
    package var preservedColumns: [Int] = []

    package var columns: [String] { keyColumns + valueColumns }

    /// Every table the log covers for `manifest`, models first, in manifest order; each link table once.
    package static func all(in manifest: SchemaManifest) -> [LoggedTable] {
        manifest.models.map { model in
            let columns = SchemaDDL.storedColumns(model, in: manifest)
            var table = LoggedTable(name: model.name, keyColumns: [StoreFormat.current.keyColumn], valueColumns: columns)
            table.preservedColumns = columns.indices.filter { model.field(named: columns[$0])?.preservesValueOnDeletion == true }
            return table
        } + RelationshipStorage.all(in: manifest).filter { $0.kind == .linkTable && $0.isCanonical }.map {
            LoggedTable(name: $0.linkTable!, keyColumns: ["owner", "target"], valueColumns: ["position"])
        }
    }
}
