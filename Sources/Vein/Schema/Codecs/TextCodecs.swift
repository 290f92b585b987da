import CSQLCipher
import Foundation

// The codecs of the types stored as TEXT: string, uuid, json, an enum of strings, and a to-one's id.


/// Why a non-NULL cell is not text Vein could have written (another storage class, or bytes that are
/// not UTF-8); nil when it is such text.
private func textMismatch(_ codec: some ValueCodec, _ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
    guard storage == SQLITE_TEXT else { return codec.wrongStorage(s, column) }
    return s.hasValidUTF8Text(column) ? nil : codec.wrongValue(s, column)
}

private func text(_ value: Value) -> String { if case .string(let s) = value { return s } else { return "" } }

/// Text in NFC (see `NormalForm.text`).
final class StringCodec: FieldTypeCodec {
    var fieldType: FieldType { .string }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .string(let s) = value else { throw .wrongType }
        return .string(NormalForm.text(s))
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? { textMismatch(self, s, column, storage: storage) }
    func readChecked(_ s: Statement, _ column: Int) -> Value { .string(s.string(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .string(value.string ?? "") }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let s = json.stringValue else { throw jsonMismatch(json) }
        return .string(NormalForm.text(s))
    }

    func json(_ value: Value) -> JSONValue { .string(text(value)) }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { JSONWriter.writeString(utf8: s.textBytes(column), into: &out) }

    func syntheticValue(row i: Int, unique: Bool) -> Value {
        let samples = ["", "a", "Hello, World", "ümlaut ß", "日本語", "with \"quotes\"", "  spaced  "]
        return .string(unique ? "\(samples[i % samples.count])\(i)" : samples[i % samples.count])
    }
    var emptyValues: [Value] { [.string("")] }
}

/// A UUID in Foundation's uppercase form; a cell in any other spelling was not written by Vein.
final class UUIDCodec: FieldTypeCodec {
    var fieldType: FieldType { .uuid }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .string(let s) = value, let uuid = NormalForm.uuid(s) else { throw .wrongType }
        return .string(uuid)
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        if let mismatch = textMismatch(self, s, column, storage: storage) { return mismatch }
        let text = String(decoding: s.textBytes(column), as: UTF8.self)
        return NormalForm.uuid(text) == text ? nil : wrongValue(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .string(s.string(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .string(value.string ?? "") }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let s = json.stringValue else { throw jsonMismatch(json) }
        guard let uuid = NormalForm.uuid(s) else { throw ValueMismatch(expectation: "a UUID, found \"\(s)\"") }
        return .string(uuid)
    }

    func json(_ value: Value) -> JSONValue { .string(text(value)) }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { JSONWriter.writeString(utf8: s.textBytes(column), into: &out) }
    func syntheticValue(row i: Int, unique: Bool) -> Value { .string(String(format: "00000000-0000-4000-8000-%012d", i)) }
    var emptyValues: [Value] { [.string(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).uuidString)] }
}

/// Any JSON value, held in memory and stored as its canonical text (docs/store-format.md), so equal values are equal
/// text and an export gives the same bytes.
final class JSONCodec: FieldTypeCodec {
    var fieldType: FieldType { .json }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .string(let s) = value, let canonical = NormalForm.json(s) else { throw .wrongType }
        return .string(canonical)
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        if let mismatch = textMismatch(self, s, column, storage: storage) { return mismatch }
        return (try? JSONParser.parse(String(decoding: s.textBytes(column), as: UTF8.self))) == nil ? wrongValue(s, column) : nil
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .string(s.string(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .string(value.string ?? "null") }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        if let bad = json.firstNonFiniteNumber { throw ValueMismatch(expectation: "a finite number, found \(bad)") }
        return .string(JSONWriter.string(json.canonicalized()))
    }

    func json(_ value: Value) -> JSONValue { (try? JSONParser.parse(text(value))) ?? .null }

    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) {
        // Canonical already when Vein wrote it; re-canonicalized in case SQL wrote it by hand.
        let stored = s.string(column)
        if let canonical = NormalForm.json(stored) { out += canonical.utf8 } else { JSONWriter.writeString(utf8: Array(stored.utf8), into: &out) }
    }

    func syntheticValue(row i: Int, unique: Bool) -> Value { .string("{\"n\":\(i)}") }
    var emptyValues: [Value] { ["[]", "{}", "\"\"", "0", "false"].map(Value.string) }
}

/// An enum whose raw values are strings, stored as the manifest spells them.
final class TextEnumCodec: FieldTypeCodec {
    let values: [JSONValue]
    private let allowed: Set<String>

    init(values: [JSONValue]) {
        self.values = values
        allowed = Set(values.compactMap(\.stringValue))
    }

    var fieldType: FieldType { .enum }
    var columnType: String { "TEXT" }
    func checkConstraint(column: String) -> String? { enumCheck(column, values) }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        // Stored as the manifest spells it (Swift stores an enum's rawValue); an equivalent spelling matches.
        guard case .string(let s) = value, let match = values.first(where: { $0 == .string(s) })?.stringValue else { throw .wrongType }
        return .string(match)
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        if let mismatch = textMismatch(self, s, column, storage: storage) { return mismatch }
        return allowed.contains(String(decoding: s.textBytes(column), as: UTF8.self)) ? nil : wrongValue(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .string(s.string(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { value.int64.map(Value.int) ?? .string(value.string ?? "") }
    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value { try enumValue(json, values) }
    func json(_ value: Value) -> JSONValue { .string(text(value)) }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { JSONWriter.writeString(utf8: s.textBytes(column), into: &out) }
    func syntheticValue(row i: Int, unique: Bool) -> Value { .string(values[i % values.count].stringValue ?? "") }
    var emptyValues: [Value] { values.prefix(1).map { .string($0.stringValue ?? "") } }
}

/// A to-one relationship's column: the target's id. Which ids are valid is the relationship's to check
/// (`vein verify`, save); the cell must be text.
final class ReferenceCodec: ValueCodec {
    var typeName: String { "id" }
    var swiftTypeName: String { "ID" }
    var columnType: String { "TEXT" }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .string = value else { throw .wrongType }
        return value
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? { textMismatch(self, s, column, storage: storage) }
    func readChecked(_ s: Statement, _ column: Int) -> Value { .string(s.string(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .string(value.string ?? "") }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let s = json.stringValue else { throw ValueMismatch(expectation: "an id, found \(json.kindName)") }
        return .string(s)
    }

    func json(_ value: Value) -> JSONValue { .string(text(value)) }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { JSONWriter.writeString(utf8: s.textBytes(column), into: &out) }
    // `migrate check` links synthetic rows to rows it made; an id of its own would name none.
    func syntheticValue(row i: Int, unique: Bool) -> Value { .null }
    var emptyValues: [Value] { [] }
}
