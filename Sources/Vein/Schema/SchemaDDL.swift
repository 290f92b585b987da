import Foundation

/// The SQL that lays a schema out in SQLite (SPEC §2): one table per model, `id TEXT PRIMARY KEY`, a
/// column per field and per relationship, and the indexes the schema declares plus one per to-one.
///
/// Only SQL that SQLite 3.15 runs (SQLCipher 3.4.1): no STRICT tables, no generated columns.
public enum SchemaDDL {
    /// Every statement to create the schema's tables and indexes, in order.
    public static func createStatements(for manifest: SchemaManifest) -> [String] {
        manifest.models.flatMap { createStatements(for: $0, tableName: $0.name) }
    }

    /// The statements for one model; `tableName` lets a migration build under a temporary name.
    public static func createStatements(for model: ModelSchema, tableName: String) -> [String] {
        [createTable(model, tableName: tableName)] + indexes(for: model).map { $0.sql(table: tableName) }
    }

    public static func createTable(_ model: ModelSchema, tableName: String) -> String {
        var columns = ["\"id\" TEXT PRIMARY KEY NOT NULL"]
        for field in model.fields { columns.append(columnDefinition(field)) }
        for rel in model.relationships {
            let name = SQL.quoteIdentifier(rel.name)
            columns.append(rel.isToMany ? "\(name) TEXT NOT NULL DEFAULT '[]'" : "\(name) TEXT")
        }
        return "CREATE TABLE \(SQL.quoteIdentifier(tableName)) (\n  " + columns.joined(separator: ",\n  ") + "\n)"
    }

    public static func columnDefinition(_ field: FieldSchema) -> String {
        let name = SQL.quoteIdentifier(field.name)
        var parts = [name, field.columnType]
        if !field.isOptional { parts.append("NOT NULL") }
        if field.isUnique { parts.append("UNIQUE") }
        if let d = field.defaultValue, let literal = try? sqlLiteral(field.databaseValue(fromJSON: d)) {
            parts.append("DEFAULT \(literal)")
        }
        // CHECKs keep values that raw SQL writes inside the type's domain.
        switch field.type {
        case .bool: parts.append("CHECK (\(name) IN (0, 1))")
        case .enum:
            let list = field.enumValues.compactMap { try? sqlLiteral(field.databaseValue(fromJSON: $0)) }
            parts.append("CHECK (\(name) IN (\(list.joined(separator: ", "))))")
        default: break
        }
        return parts.joined(separator: " ")
    }

    /// A SQL literal for a value (DEFAULT clauses are constants, so they cannot be bound).
    public static func sqlLiteral(_ value: DatabaseValue) -> String {
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
    public struct Index: Equatable, Sendable {
        public let name: String
        public let columns: [String]
        public func sql(table: String) -> String {
            "CREATE INDEX \(SQL.quoteIdentifier(name)) ON \(SQL.quoteIdentifier(table)) ("
                + columns.map(SQL.quoteIdentifier).joined(separator: ", ") + ")"
        }
    }

    /// Declared indexes, then one per to-one relationship not already leading a declared index.
    /// Names are `Model.column[.column…]`: derived, so the same in every store of the schema, and never
    /// equal to a table name (model names cannot contain dots).
    public static func indexes(for model: ModelSchema) -> [Index] {
        var result = model.indexes.map { Index(name: indexName(model.name, $0), columns: $0) }
        for rel in model.relationships where !rel.isToMany {
            if !result.contains(where: { $0.columns.first == rel.name }) {
                result.append(Index(name: indexName(model.name, [rel.name]), columns: [rel.name]))
            }
        }
        return result
    }

    static func indexName(_ model: String, _ columns: [String]) -> String {
        "\(model).\(columns.joined(separator: "."))"
    }
}
