import CSQLCipher
import Foundation

/// How values of one field type move between memory (`Value`), SQLite, JSON and export bytes, and the
/// one normal form each is kept in (docs/store-format.md; ARCHITECTURE.md I16). Every reader and writer of field values asks its field's
/// codec: the context (fetch, lazy load, save), the interchange (export, import), migrations, `vein
/// verify` and DDL. One conforming type per field type (`FieldType.codec`), plus `ReferenceCodec` for a
/// to-one's id column.
///
/// Non-NULL values only: NULL and optionality are `FieldCodec`'s, the same for every type.
protocol ValueCodec: AnyObject, Sendable {
    /// The type as a schema names it (`int`, `date`; `id` for a to-one), for messages.
    var typeName: String { get }
    /// The type as Swift names it (`Int`, `Date`; `enum`), for the context's messages.
    var swiftTypeName: String { get }
    /// The declared column type, which is also SQLite's affinity for it.
    var columnType: String { get }
    /// The CHECK that keeps values written by raw SQL inside the type's domain, over the quoted column.
    func checkConstraint(column: String) -> String?

    /// The value in the form it is stored in (NFC text, microsecond dates, canonical JSON, uppercase
    /// UUIDs, the manifest's enum spelling); throws when it is not of this type or no cell may hold it.
    func normalized(_ value: Value) throws(ValueRefusal) -> Value
    /// Why the current row's non-NULL cell is not a value of this type (nil when it is one). `storage` is
    /// the cell's storage class: SQLite stores any value in any column, and another tool may have.
    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch?
    /// The current row's cell, checked: `.null` for NULL; throws rather than read a cell of another type
    /// (`sqlite3_column_int64` of `'abc'` is 0: a value nobody stored). A requirement, so the default
    /// below is compiled per type: one dynamic call per cell of a fetch.
    func read(_ s: Statement, _ column: Int) throws(CellMismatch) -> Value
    /// The current row's non-NULL cell, already found to be a value of this type.
    func readChecked(_ s: Statement, _ column: Int) -> Value
    /// The value of a stored cell given as a `DatabaseValue` (not NULL), the inverse of `Value.databaseValue`.
    func value(fromDatabase value: DatabaseValue) -> Value
    /// A JSON value (import, a manifest default), checked and normalized; not `null`.
    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value
    /// The JSON form of a stored value (docs/interchange.md).
    func json(_ value: Value) -> JSONValue
    /// The current row's checked non-NULL cell as export bytes, the same bytes `json` would write.
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8])
    /// A varied value for row `i` (`migrate check`'s synthetic rows), distinct per row when `unique`.
    func syntheticValue(row i: Int, unique: Bool) -> Value
    /// The values a property of this type reads when there is nothing to read, best first (VeinCore's
    /// `AbsentFieldValue` takes the first its Swift type decodes; a JSON field's type decides which
    /// shape it has). Empty for a to-one's id.
    var emptyValues: [Value] { get }
}

extension ValueCodec {
    func checkConstraint(column: String) -> String? { nil }

    func read(_ s: Statement, _ column: Int) throws(CellMismatch) -> Value {
        // The storage class read once: this runs for every column of every fetched row.
        let storage = s.storageClass(column)
        if storage == SQLITE_NULL { return .null }
        if let mismatch = mismatch(s, column, storage: storage) { throw mismatch }
        return readChecked(s, column)
    }

    func wrongStorage(_ s: Statement, _ column: Int) -> CellMismatch {
        CellMismatch(isWrongStorage: true, found: s.cellDescription(column))
    }

    func wrongValue(_ s: Statement, _ column: Int) -> CellMismatch {
        CellMismatch(isWrongStorage: false, found: s.cellDescription(column))
    }
}

/// The codec of a field type: what it says of itself (names, column type, JSON form) comes from the
/// type's facts (`FieldType.facts`), so no codec restates them.
protocol FieldTypeCodec: ValueCodec {
    var fieldType: FieldType { get }
}

extension FieldTypeCodec {
    var typeName: String { fieldType.rawValue }
    var swiftTypeName: String { fieldType.facts.swiftName ?? fieldType.rawValue }
    var columnType: String {
        guard let columnType = fieldType.facts.columnType else {
            preconditionFailure("the \(fieldType) codec names its own column type (its facts leave it to the field)")
        }
        return columnType
    }

    /// A JSON value of another kind than the type's JSON form.
    func jsonMismatch(_ json: JSONValue) -> ValueMismatch {
        ValueMismatch(expectation: "\(fieldType.facts.jsonForm), found \(json.kindName)")
    }
}

/// Why a value does not fit a field in memory: of another type, or of the type but unstorable (an
/// infinity, a date outside four-digit years), with what was expected and found.
package enum ValueRefusal: Error, Equatable, Sendable {
    case wrongType
    case unstorable(expected: String, found: String)
}

extension FieldType {
    /// The type's empty values (its codec's `emptyValues`), for a property that has nothing to read.
    package func emptyValues(enumValues: [JSONValue]) -> [Value] { codec(enumValues: enumValues).emptyValues }

    /// The codec of this type. The one `switch` over field types that picks behaviour: a new type
    /// does not compile until it has a codec.
    func codec(enumValues: [JSONValue]) -> any ValueCodec {
        switch self {
        case .string: return StringCodec()
        case .int: return IntCodec()
        case .double: return DoubleCodec()
        case .bool: return BoolCodec()
        case .date: return DateCodec()
        case .data: return DataCodec()
        case .uuid: return UUIDCodec()
        case .json: return JSONCodec()
        case .enum:
            return enumValues.first?.intValue != nil ? IntegerEnumCodec(values: enumValues) : TextEnumCodec(values: enumValues)
        }
    }
}

/// One field's codec: its type's codec plus what the field adds (NULL when optional). Built once per
/// field by whoever reads or writes many rows (`ModelLayout`, the exporter, the importer).
package struct FieldCodec: Sendable {
    let type: any ValueCodec
    public let isOptional: Bool

    init(_ type: any ValueCodec, isOptional: Bool) {
        self.type = type
        self.isOptional = isOptional
    }

    public init(field: FieldSchema) {
        self.init(field.type.codec(enumValues: field.enumValues), isOptional: field.isOptional)
    }

    /// A to-one relationship's column: a row id or NULL.
    public static let reference = FieldCodec(ReferenceCodec(), isOptional: true)

    /// The type as a schema names it (`int`; `id` for a to-one), for messages.
    public var typeName: String { type.typeName }
    /// The declared column type.
    public var columnType: String { type.columnType }

    /// `Int`, `Int?`, `enum`: the field's type as the context's messages name it.
    public var swiftTypeDescription: String { type.swiftTypeName + (isOptional ? "?" : "") }

    public func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        if case .null = value {
            guard isOptional else { throw .wrongType }
            return .null
        }
        return try type.normalized(value)
    }

    /// Why the current row's cell is not a value of this field's type; nil when it is one, or NULL
    /// (NOT NULL is SQLite's to enforce).
    func mismatch(_ s: Statement, _ column: Int) -> CellMismatch? {
        let storage = s.storageClass(column)
        return storage == SQLITE_NULL ? nil : type.mismatch(s, column, storage: storage)
    }

    @inline(__always)
    func read(_ s: Statement, _ column: Int) throws(CellMismatch) -> Value { try type.read(s, column) }

    /// Binds a value in its stored form (one the codec normalized) at a 1-based index.
    func bind(_ value: Value, to s: Statement, at index: Int) throws {
        switch value {
        case .null: try s.bindNull(at: index)
        case .string(let text): try s.bind(text: text, at: index)
        case .int(let i): try s.bind(int64: i, at: index)
        case .double(let d), .date(let d): try s.bind(double: d, at: index)
        case .bool(let b): try s.bind(int64: b ? 1 : 0, at: index)
        case .data(let d): try s.bind(blob: d, at: index)
        case .array: try s.bind(value.databaseValue, at: index)
        }
    }

    public func value(fromDatabase value: DatabaseValue) -> Value {
        value.isNull ? .null : type.value(fromDatabase: value)
    }

    /// Converts a JSON value (a manifest default, an import record) to the stored value, checking it
    /// against the field's type. `null` is accepted only for optional fields.
    public func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        if case .null = json {
            guard isOptional else { throw ValueMismatch(expectation: "a value (the field is not optional), found null") }
            return .null
        }
        return try type.value(fromJSON: json)
    }

    public func json(_ value: Value) -> JSONValue { value == .null ? .null : type.json(value) }

    /// The current row's cell as export bytes; throws for a cell not of the field's type (an export
    /// never writes a value nobody stored).
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) throws(CellMismatch) {
        let storage = s.storageClass(column)
        if storage == SQLITE_NULL { out += Self.nullBytes; return }
        if let mismatch = type.mismatch(s, column, storage: storage) { throw mismatch }
        type.writeJSON(s, column, into: &out)
    }

    private static let nullBytes = Array("null".utf8)

    /// Nil on every third row of an optional field, else the type's synthetic value.
    public func syntheticValue(row i: Int, unique: Bool) -> Value {
        isOptional && i % 3 == 2 ? .null : type.syntheticValue(row: i, unique: unique)
    }
}

extension FieldSchema {
    /// This field's codec (a small value; callers that handle many rows keep it).
    package var codec: FieldCodec { FieldCodec(field: self) }

    /// The column value of a JSON value (a manifest default, an import record), checked against the type.
    package func databaseValue(fromJSON json: JSONValue) throws(ValueMismatch) -> DatabaseValue {
        try codec.value(fromJSON: json).databaseValue
    }

    /// The JSON form of a column value (export, `vein schema`), the inverse of `databaseValue(fromJSON:)`.
    public func jsonValue(fromDatabase value: DatabaseValue) -> JSONValue {
        let codec = codec
        return codec.json(codec.value(fromDatabase: value))
    }
}
