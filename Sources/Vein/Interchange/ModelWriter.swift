import Foundation

/// Turns records of one model into rows and writes them, inserting or (with `upsert`) replacing by id.
///
/// Every row it writes gets a rowid above the largest the table had when the import began, so the rows of
/// the file are known without remembering their ids: an id whose row has such a rowid was written by an
/// earlier record of the same file (a repeat), and `_rowid_ >= firstRowid` selects the file's rows. (The
/// rowid is named `_rowid_`: a field may be called `rowid` or `oid`, never a name starting with `_`.)
final class ModelWriter {
    let model: ModelSchema
    /// Fields, then relationships, as `ModelSchema.columnNames`.
    let columns: [String]
    let position: [String: Int]
    /// How each relationship is stored, in `model.relationships` order.
    let storages: [RelationshipStorage]
    /// Each field's codec, in `model.fields` order, with its default in stored form (nil when none).
    let codecs: [FieldCodec]
    let defaults: [DatabaseValue?]
    /// The first rowid this import gives a row of the model.
    let firstRowid: Int64
    private var nextRowid: Int64
    private let upsert: Bool
    /// The record member that holds the key (`InterchangeVersion.keyMember`).
    private let keyMember: String
    private let database: Database
    private let insertSQL: String
    /// `rowid, <to-one>…, <its position>…` of the row with id `?1`: what a replaced row keeps.
    private let findSQL: String
    /// To-ones whose inverse is a to-many kept in a position column on this row: the to-one's index in a
    /// row's values, its column and its position column.
    private let positioned: [(valueIndex: Int, column: String, positionColumn: String)]
    /// The lists this model keeps in link tables of its own: a replaced row's old lists go.
    private let ownedLinks: [RelationshipStorage]

    struct Failure: Error {
        let field: String?
        let message: String
    }

    /// The table's largest rowid is the largest there is: no row can be given a rowid above it.
    struct RowidsUsedUp: Error {}

    /// A record's values in column order (`id`, fields, to-ones) and its to-many lists.
    struct Row {
        var values: [DatabaseValue]
        var lists: [(storage: RelationshipStorage, members: [String])]
        var id: String { values[0].string ?? "" }
    }

    /// What became of a row.
    enum Outcome {
        case inserted
        /// Its id was in the store before the import (with `upsert`).
        case replaced
        /// Its id was in the store before the import (without `upsert`).
        case takenInStore
        /// Its id is that of an earlier record of the file.
        case repeated
        /// Another constraint refused it (a unique field): SQLite's message.
        case refused(String)
    }

    init(model: ModelSchema, manifest: SchemaManifest, database: Database, upsert: Bool, keyMember: String) throws {
        self.keyMember = keyMember
        self.model = model
        self.upsert = upsert
        self.database = database
        columns = model.columnNames
        position = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        let codecs = model.fields.map(\.codec)
        self.codecs = codecs
        defaults = zip(model.fields, codecs).map { field, codec in field.defaultValue.flatMap { try? codec.value(fromJSON: $0).databaseValue } }
        storages = model.relationships.map { RelationshipStorage(model: model, relationship: $0, in: manifest) }
        let q = SQL.quoteIdentifier
        let table = q(model.name)
        let largest = try database.scalar("SELECT max(_rowid_) FROM \(table)")?.int64 ?? 0
        guard largest < Int64.max else { throw RowidsUsedUp() }
        firstRowid = largest + 1
        nextRowid = firstRowid
        // To-many lists are written as links (or positions) by ImportLinks; a to-one's position column is
        // written here only when a replaced row keeps its owner (and its place in the owner's list).
        let toOnes = storages.filter { !$0.isToMany }
        var positioned: [(Int, String, String)] = []
        for (k, storage) in toOnes.enumerated() {
            if let column = storage.positionColumn { positioned.append((1 + model.fields.count + k, storage.name, column)) }
        }
        self.positioned = positioned
        ownedLinks = storages.filter { $0.kind == .linkTable && $0.isCanonical }
        let names = ["_rowid_"] + ([StoreFormat.current.keyColumn] + model.fields.map(\.name) + toOnes.map(\.name) + positioned.map(\.2)).map(q)
        insertSQL = "INSERT INTO \(table) (" + names.joined(separator: ", ") + ") VALUES (" + names.map { _ in "?" }.joined(separator: ", ") + ")"
        findSQL = "SELECT " + (["_rowid_"] + positioned.flatMap { [q($0.1), q($0.2)] }).joined(separator: ", ")
            + " FROM \(table) WHERE \(StoreFormat.key) = ?1"
    }

    /// Writes one row: inserts it, or replaces the row with its id when upserting. A replaced row is
    /// deleted and inserted again (never `INSERT OR REPLACE`, which would also delete any other row holding
    /// one of its unique values); it keeps its place in its owner's list when its to-one still names that
    /// owner, and its own lists in link tables go (the record's lists take their place).
    func write(_ row: Row) throws -> Outcome {
        if upsert {
            guard let old = try database.cachedStatement(findSQL).rows([.text(row.id)]).first else { return try insert(row, positions: nil) }
            guard old[0].int64 ?? 0 < firstRowid else { return .repeated }
            let positions = positioned.enumerated().map { k, p in old[1 + 2 * k] == row.values[p.valueIndex] ? old[2 + 2 * k] : .null }
            try database.execute("DELETE FROM \(SQL.quoteIdentifier(model.name)) WHERE _rowid_ = ?1", [old[0]])
            for storage in ownedLinks { try LinkWriter(database: database).removeAll(from: row.id, on: storage) }
            let outcome = try insert(row, positions: positions)
            if case .inserted = outcome { return .replaced }
            return outcome
        }
        return try insert(row, positions: nil)
    }

    private func insert(_ row: Row, positions: [DatabaseValue]?) throws -> Outcome {
        let statement = try database.cachedStatement(insertSQL)
        defer { statement.reset() }
        do {
            try statement.bind(.integer(nextRowid), at: 1)
            for (i, value) in row.values.enumerated() { try statement.bind(value, at: i + 2) }
            for (k, value) in (positions ?? positioned.map { _ in .null }).enumerated() { try statement.bind(value, at: row.values.count + 2 + k) }
            try statement.step()
        } catch let e as DatabaseError where e.isConstraintViolation {
            statement.reset()
            // Which constraint: the id's (a row with it exists) or another one.
            guard let rowid = try database.scalar("SELECT _rowid_ FROM \(SQL.quoteIdentifier(model.name)) WHERE \(StoreFormat.key) = ?1", [.text(row.id)])?.int64 else {
                return .refused(e.message)
            }
            return rowid >= firstRowid ? .repeated : .takenInStore
        }
        nextRowid += 1
        return .inserted
    }

    func values(of record: JSONObject) -> Result<Row, Failure> {
        // One pass over the record's members, each placed by column position. Records list their members
        // in column order (export writes them so): the column after the last one placed is tried first, a
        // comparison of two short strings instead of a hash of the name.
        var given = [JSONValue?](repeating: nil, count: columns.count)
        var id: JSONValue?
        var next = 0
        for member in record {
            if member.key == keyMember { id = member.value; continue }
            guard let i = next < columns.count && columns[next] == member.key ? next : position[member.key] else {
                return .failure(Failure(field: member.key, message: "no field \"\(member.key)\" in \(model.name)" + Suggestion.hint(for: member.key, in: columns)))
            }
            given[i] = member.value
            next = i + 1
        }
        guard let idText = id?.stringValue, Self.isCanonicalULID(idText) else {
            return .failure(Failure(field: keyMember, message: "expected a ULID (26 characters of Crockford base32), found "
                                    + (id.map { JSONWriter.string($0) } ?? "nothing")))
        }
        var values: [DatabaseValue] = [.text(idText)]
        values.reserveCapacity(columns.count + 1)
        for (i, field) in model.fields.enumerated() {
            guard let json = given[i] else {
                if let v = defaults[i] { values.append(v); continue }
                if field.isOptional { values.append(.null); continue }
                return .failure(Failure(field: field.name, message: "missing a value for the required field (\(field.type.rawValue))"))
            }
            do {
                values.append(try codecs[i].value(fromJSON: json).databaseValue)
            } catch {
                return .failure(Failure(field: field.name, message: "expected \(error.expectation)"))
            }
        }
        var lists: [(RelationshipStorage, [String])] = []
        for (k, rel) in model.relationships.enumerated() {
            switch (given[model.fields.count + k], rel.isToMany) {
            case (nil, false), (.null?, false): values.append(.null)
            case (nil, true): lists.append((storages[k], []))
            case (.string(let target)?, false) where Self.isCanonicalULID(target): values.append(.text(target))
            case (.array(let items)?, true) where items.allSatisfy({ $0.stringValue.map(Self.isCanonicalULID) ?? false }):
                let ids = items.compactMap(\.stringValue)
                if Set(ids).count != ids.count {
                    return .failure(Failure(field: rel.name, message: "lists the same id twice"))
                }
                lists.append((storages[k], ids))
            case (let other?, _):
                return .failure(Failure(field: rel.name, message: rel.isToMany
                    ? "expected an array of ids of \(rel.target) rows, found \(JSONWriter.string(other).prefix(40))"
                    : "expected the id of a \(rel.target) row or null, found \(JSONWriter.string(other).prefix(40))"))
            }
        }
        return .success(Row(values: values, lists: lists))
    }

    static func isCanonicalULID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { ULID(canonicalUTF8: $0) != nil }
    }
}
