import Foundation

/// The SQL that lays a schema out in SQLite (docs/store-format.md): one table per model, keyed by
/// `StoreFormat`'s key column, a column per field and per to-one (plus the position column of a to-many kept through
/// it), the indexes the schema declares plus one per to-one, and a link table per many-to-many or
/// one-way to-many (`RelationshipStorage` says which).
///
/// Only SQL that SQLite 3.15 runs (SQLCipher 3.4.1): no STRICT tables, no generated columns.
package enum SchemaDDL {
    /// Every statement to create the schema's tables and indexes, in order.
    package static func createStatements(for manifest: SchemaManifest) -> [String] {
        manifest.models.flatMap { createStatements(for: $0, tableName: $0.name, in: manifest) }
            + RelationshipStorage.all(in: manifest).flatMap(\.linkTableStatements)
    }

    /// The statements for one model; `tableName` lets a migration build under a temporary name.
    package static func createStatements(for model: ModelSchema, tableName: String, in manifest: SchemaManifest) -> [String] {
        [createTable(model, tableName: tableName, in: manifest)] + indexes(for: model, in: manifest).map { $0.sql(table: tableName) }
    }

    /// Every column after the key, in table order: fields, then each to-one with the position column of
    /// its inverse to-many when it has one. To-many relationships have no column of their own.
    package static func storedColumns(_ model: ModelSchema, in manifest: SchemaManifest) -> [String] {
        model.fields.map(\.name) + model.relationships.flatMap { rel -> [String] in
            let storage = RelationshipStorage(model: model, relationship: rel, in: manifest)
            guard storage.kind == .column else { return [] }
            return [rel.name] + (storage.positionColumn.map { [$0] } ?? [])
        }
    }

    /// `format`: the layout of a store of another format, to compare with (verify) or convert from (upgrade).
    package static func createTable(_ model: ModelSchema, tableName: String, in manifest: SchemaManifest,
                                    format: StoreFormat = .current) -> String {
        var columns = ["\(SQL.quoteIdentifier(format.keyColumn)) TEXT PRIMARY KEY NOT NULL"]
        for field in model.fields { columns.append(columnDefinition(field)) }
        for rel in model.relationships {
            let storage = RelationshipStorage(model: model, relationship: rel, in: manifest)
            guard storage.kind == .column else { continue }
            columns.append("\(SQL.quoteIdentifier(rel.name)) TEXT")
            if let position = storage.positionColumn { columns.append("\(SQL.quoteIdentifier(position)) INTEGER") }
        }
        return "CREATE TABLE \(SQL.quoteIdentifier(tableName)) (\n  " + columns.joined(separator: ",\n  ") + "\n)"
    }

    package static func columnDefinition(_ field: FieldSchema) -> String {
        let name = SQL.quoteIdentifier(field.name)
        var parts = [name, field.columnType]
        if !field.isOptional { parts.append("NOT NULL") }
        if field.isUnique { parts.append("UNIQUE") }
        if let d = field.defaultValue, let literal = try? sqlLiteral(field.databaseValue(fromJSON: d)) {
            parts.append("DEFAULT \(literal)")
        }
        // CHECKs keep values that raw SQL writes inside the type's domain.
        if let check = field.codec.type.checkConstraint(column: name) { parts.append(check) }
        return parts.joined(separator: " ")
    }

    /// A SQL literal for a value (DEFAULT clauses are constants, so they cannot be bound).
    package static func sqlLiteral(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return d.isFinite ? "\(d)" : "NULL"
        // SQL text ends at a NUL (sqlite3_prepare reads to the first one): such text is written as its bytes.
        case .text(let s) where s.utf8.contains(0): return "(CAST(X'\(Hex.encode(Data(s.utf8)))' AS TEXT))"
        case .text(let s): return SQL.quoteString(s)
        case .blob(let data): return "X'\(Hex.encode(data))'"
        }
    }

    /// An index as Vein names and creates it.
    package struct Index: Equatable, Sendable {
        package let name: String
        package let columns: [String]
        /// A compound unique constraint's index.
        package var isUnique = false
        package func sql(table: String) -> String {
            "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(SQL.quoteIdentifier(name)) ON \(SQL.quoteIdentifier(table)) ("
                + columns.map(SQL.quoteIdentifier).joined(separator: ", ") + ")"
        }
    }

    /// Declared indexes, then one UNIQUE index per compound unique constraint (in SQLite 3.15, as in SQL,
    /// NULLs are distinct there: rows that hold nil in one of its columns never collide), then one per
    /// to-one relationship not already leading one of these; a to-one
    /// that keeps its inverse to-many's order gets (column, position), so members in order and the next
    /// position are one seek. Names are `Model.column[.column…]` (`Model._unique.column.column…` for a
    /// constraint): derived, so the same in every store of the schema, and never equal to a table name
    /// (model names cannot contain dots).
    package static func indexes(for model: ModelSchema, in manifest: SchemaManifest) -> [Index] {
        var result = model.indexes.map { Index(name: indexName(model.name, $0), columns: $0) }
            + model.uniquenessConstraints.map {
                Index(name: StoreFormat.uniqueIndexName(model: model.name, columns: $0), columns: $0, isUnique: true)
            }
        for rel in model.relationships where !rel.isToMany {
            let columns = [rel.name] + (RelationshipStorage(model: model, relationship: rel, in: manifest).positionColumn.map { [$0] } ?? [])
            if !result.contains(where: { $0.columns.starts(with: columns) }) {
                result.append(Index(name: indexName(model.name, columns), columns: columns))
            }
        }
        return result
    }

    static func indexName(_ model: String, _ columns: [String]) -> String {
        "\(model).\(columns.joined(separator: "."))"
    }
}
