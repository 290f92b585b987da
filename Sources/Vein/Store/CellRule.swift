import CSQLCipher
import Foundation

/// What one column's cells must hold, decided once per column: the one rule every reader of stored values
/// applies (fetch, lazy load, export, `vein verify`).
///
/// SQLite stores any value in any column (its types are affinities), so another tool — the sqlite3 shell,
/// a program with a bug — can leave `'abc'` in an int column or `'yesterday'` in a date. Reading such a
/// cell with `sqlite3_column_int64` gives 0 and with `sqlite3_column_double` 1970: a value nobody stored.
/// Vein never reads a cell as something it is not; it refuses the cell, naming it.
struct CellRule: Sendable {
    enum Kind: Sendable {
        case int, bool, double, date, string, uuid, json, data
        case enumInteger(Set<Int64>)
        case enumText(Set<String>)
        /// A to-one relationship: a row id. (A to-many is no cell: store format 2 keeps it in its
        /// inverse's column or a link table.)
        case toOne
    }

    let kind: Kind
    /// The type as a schema names it, for messages.
    let typeName: String

    init(field: FieldSchema) {
        typeName = field.type.rawValue
        switch field.type {
        case .int: kind = .int
        case .bool: kind = .bool
        case .double: kind = .double
        case .date: kind = .date
        case .string: kind = .string
        case .uuid: kind = .uuid
        case .json: kind = .json
        case .data: kind = .data
        case .enum:
            kind = field.columnType == "INTEGER" ? .enumInteger(Set(field.enumValues.compactMap(\.intValue)))
                                                 : .enumText(Set(field.enumValues.compactMap(\.stringValue)))
        }
    }

    /// The rule of a to-one's column; nil for a to-many, which has no column.
    init?(relationship: RelationshipSchema) {
        guard !relationship.isToMany else { return nil }
        kind = .toOne
        typeName = "id"
    }

    init?(model: ModelSchema, column: String) {
        if let field = model.field(named: column) { self.init(field: field) } else { self.init(relationship: model.relationship(named: column)!) }
    }

    /// Why the current row's cell is not a value of this column's type; nil when it is one, or NULL
    /// (NOT NULL is SQLite's to enforce).
    func mismatch(_ s: Statement, _ column: Int) -> CellMismatch? {
        let storage = s.storageClass(column)
        return storage == SQLITE_NULL ? nil : mismatch(s, column, storage: storage)
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        func wrongStorage() -> CellMismatch { CellMismatch(isWrongStorage: true, found: Self.describe(s, column, storage)) }
        func wrongValue() -> CellMismatch { CellMismatch(isWrongStorage: false, found: Self.describe(s, column, storage)) }
        switch kind {
        case .int:
            return storage == SQLITE_INTEGER ? nil : wrongStorage()
        case .bool:
            guard storage == SQLITE_INTEGER else { return wrongStorage() }
            return (0...1).contains(s.int64(column)) ? nil : wrongValue()
        case .enumInteger(let values):
            guard storage == SQLITE_INTEGER else { return wrongStorage() }
            return values.contains(s.int64(column)) ? nil : wrongValue()
        case .double, .date:
            let value: Double
            switch storage {
            case SQLITE_FLOAT: value = s.double(column)
            // REAL affinity stores integers as REAL, so only another tool leaves one; taken when exact.
            case SQLITE_INTEGER:
                let i = s.int64(column)
                guard let d = Double(exactly: i) else { return wrongValue() }
                value = d
            default: return wrongStorage()
            }
            if case .date = kind { return ISODate.representable.contains(value) ? nil : wrongValue() }
            return value.isFinite ? nil : wrongValue()
        case .data:
            return storage == SQLITE_BLOB ? nil : wrongStorage()
        case .string, .uuid, .json, .enumText, .toOne:
            guard storage == SQLITE_TEXT else { return wrongStorage() }
            let bytes = s.textBytes(column)
            guard Self.isValidUTF8(bytes) else { return wrongValue() }
            switch kind {
            case .uuid:
                let text = String(decoding: bytes, as: UTF8.self)
                return UUID(uuidString: text)?.uuidString == text ? nil : wrongValue()
            case .json:
                return (try? JSONParser.parse(String(decoding: bytes, as: UTF8.self))) == nil ? wrongValue() : nil
            case .enumText(let values):
                return values.contains(String(decoding: bytes, as: UTF8.self)) ? nil : wrongValue()
            default:
                return nil
            }
        }
    }

    /// `text "abc"`, `integer 2`, `a blob of 3 bytes`: what a cell holds, as a person reads it.
    static func describe(_ s: Statement, _ column: Int, _ storage: Int32) -> String {
        switch storage {
        case SQLITE_INTEGER: return "integer \(s.int64(column))"
        case SQLITE_FLOAT:
            let d = s.double(column)
            return "real " + (d.isFinite ? JSONWriter.formatDouble(d) : d < 0 ? "-Infinity" : "Infinity")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(s.handle, Int32(column)))
            return "a blob of \(count) byte\(count == 1 ? "" : "s")"
        default:
            let bytes = s.textBytes(column)
            guard isValidUTF8(bytes) else { return "text that is not UTF-8" }
            let text = String(decoding: bytes, as: UTF8.self)
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "text \"" + shown.escapingControlCharacters + "\""
        }
    }

    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

/// A cell that is not a value of its column's type (see `CellRule`).
struct CellMismatch: Error, Equatable, Sendable {
    /// Stored as another storage class (text in an int column), rather than outside the type's values
    /// (2 in a bool, a lowercase uuid).
    let isWrongStorage: Bool
    let found: String

    func damaged(model: String, field: String, id: String, expected: String) -> DamagedValueError {
        DamagedValueError(model: model, field: field, id: id, expected: expected, found: found)
    }
}

/// A stored value that is not of its field's type: the store was changed outside Vein. Reading it would
/// mean inventing a value (0, 1970), so the read fails instead.
public struct DamagedValueError: Error, Equatable, Sendable {
    public let model: String
    public let field: String
    public let id: String
    /// The field's type (`int`, `date`, `id`).
    public let expected: String
    /// What the cell holds (`text "abc"`).
    public let found: String
}

extension DamagedValueError: CustomStringConvertible {
    public var description: String { "\(model) \(id): \(field) holds \(found), which is not a value of type \(expected)" }
}
