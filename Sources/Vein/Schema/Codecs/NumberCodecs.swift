import CSQLCipher
import Foundation

// The codecs of the types stored as INTEGER or REAL: int, bool, double, date, and an enum of integers.


private let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)

final class IntCodec: FieldTypeCodec {
    var fieldType: FieldType { .int }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .int = value else { throw .wrongType }
        return value
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        storage == SQLITE_INTEGER ? nil : wrongStorage(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .int(s.int64(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .int(value.int64 ?? 0) }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let i = json.intValue else { throw jsonMismatch(json) }
        return .int(i)
    }

    func json(_ value: Value) -> JSONValue { if case .int(let i) = value { return .int(i) } else { return .null } }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { out += String(s.int64(column)).utf8 }

    func syntheticValue(row i: Int, unique: Bool) -> Value {
        let samples: [Int64] = [0, 1, -1, 42, .max, .min, 1_000_000]
        return .int(unique ? Int64(i) : samples[i % samples.count])
    }
    var emptyValues: [Value] { [.int(0)] }
}

final class BoolCodec: FieldTypeCodec {
    var fieldType: FieldType { .bool }
    func checkConstraint(column: String) -> String? { "CHECK (\(column) IN (0, 1))" }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .bool = value else { throw .wrongType }
        return value
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        guard storage == SQLITE_INTEGER else { return wrongStorage(s, column) }
        return (0...1).contains(s.int64(column)) ? nil : wrongValue(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .bool(s.int64(column) != 0) }
    func value(fromDatabase value: DatabaseValue) -> Value { .bool((value.int64 ?? 0) != 0) }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let b = json.boolValue else { throw jsonMismatch(json) }
        return .bool(b)
    }

    func json(_ value: Value) -> JSONValue { if case .bool(let b) = value { return .bool(b) } else { return .null } }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { out += s.int64(column) != 0 ? trueBytes : falseBytes }
    func syntheticValue(row i: Int, unique: Bool) -> Value { .bool(i % 2 == 0) }
    var emptyValues: [Value] { [.bool(false)] }
}

/// A REAL cell's value: REAL affinity stores an integer as REAL, so only another tool leaves an INTEGER
/// in such a column; it is taken when exact. Nil for any other storage class or an inexact integer.
private func realCell(_ s: Statement, _ column: Int, storage: Int32) -> (Double?, wrongStorage: Bool) {
    switch storage {
    case SQLITE_FLOAT: return (s.double(column), false)
    case SQLITE_INTEGER: return (Double(exactly: s.int64(column)), false)
    default: return (nil, true)
    }
}

final class DoubleCodec: FieldTypeCodec {
    var fieldType: FieldType { .double }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        switch value {
        case .double(let d):
            // SQLite stores NaN as NULL, and a stored infinity is a cell every reader refuses.
            guard d.isFinite else { throw .unstorable(expected: "a finite Double", found: d.isNaN ? "NaN" : d < 0 ? "-Infinity" : "Infinity") }
            return .double(NormalForm.double(d))
        case .int(let i): return .double(Double(i))
        default: throw .wrongType
        }
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        let (value, wrongStorage) = realCell(s, column, storage: storage)
        if wrongStorage { return self.wrongStorage(s, column) }
        return value?.isFinite == true ? nil : wrongValue(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .double(s.double(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .double(value.double ?? 0) }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let d = json.numberValue else { throw jsonMismatch(json) }
        if let bad = json.firstNonFiniteNumber { throw ValueMismatch(expectation: "a finite number, found \(bad)") }
        return .double(NormalForm.double(d))
    }

    func json(_ value: Value) -> JSONValue { if case .double(let d) = value { return .double(d) } else { return .null } }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { out += JSONWriter.formatDouble(s.double(column)).utf8 }

    func syntheticValue(row i: Int, unique: Bool) -> Value {
        let samples = [0, 1.5, -2.25, 1e10, 3.141592653589793]
        return .double(unique ? Double(i) + 0.5 : samples[i % samples.count])
    }
    var emptyValues: [Value] { [.double(0)] }
}

/// Seconds since 1970 UTC in a REAL, rounded to microseconds, within the years 0001 to 9999 (what the
/// JSON form can write).
final class DateCodec: FieldTypeCodec {
    var fieldType: FieldType { .date }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        switch value {
        case .date(let d), .double(let d):
            let stored = NormalForm.date(d)
            guard ISODate.representable.contains(stored) else {
                throw .unstorable(expected: "a Date in the years 0001 to 9999", found: d.isFinite ? "\(d) seconds from 1970" : "\(d)")
            }
            return .date(stored)
        default: throw .wrongType
        }
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        let (value, wrongStorage) = realCell(s, column, storage: storage)
        if wrongStorage { return self.wrongStorage(s, column) }
        return value.map(ISODate.representable.contains) == true ? nil : wrongValue(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .date(s.double(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { .date(value.double ?? 0) }

    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value {
        guard let s = json.stringValue else { throw jsonMismatch(json) }
        guard let seconds = ISODate.parse(s) else {
            throw ValueMismatch(expectation: "an ISO 8601 date such as \"2026-01-31T12:00:00.000000Z\", found \"\(s)\"")
        }
        return .date(seconds)
    }

    func json(_ value: Value) -> JSONValue { if case .date(let d) = value { return .string(ISODate.format(d)) } else { return .null } }

    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        ISODate.write(s.double(column), into: &out)
        out.append(UInt8(ascii: "\""))
    }

    func syntheticValue(row i: Int, unique: Bool) -> Value { .date(1_700_000_000 + Double(i) * 86_400.25) }
    var emptyValues: [Value] { [.date(0)] }
}

/// An enum whose raw values are integers, stored as the raw value.
final class IntegerEnumCodec: FieldTypeCodec {
    let values: [JSONValue]
    private let allowed: Set<Int64>

    init(values: [JSONValue]) {
        self.values = values
        allowed = Set(values.compactMap(\.intValue))
    }

    var fieldType: FieldType { .enum }
    var columnType: String { "INTEGER" }
    func checkConstraint(column: String) -> String? { enumCheck(column, values) }

    func normalized(_ value: Value) throws(ValueRefusal) -> Value {
        guard case .int(let n) = value, allowed.contains(n) else { throw .wrongType }
        return value
    }

    func mismatch(_ s: Statement, _ column: Int, storage: Int32) -> CellMismatch? {
        guard storage == SQLITE_INTEGER else { return wrongStorage(s, column) }
        return allowed.contains(s.int64(column)) ? nil : wrongValue(s, column)
    }

    func readChecked(_ s: Statement, _ column: Int) -> Value { .int(s.int64(column)) }
    func value(fromDatabase value: DatabaseValue) -> Value { value.int64.map(Value.int) ?? .string(value.string ?? "") }
    func value(fromJSON json: JSONValue) throws(ValueMismatch) -> Value { try enumValue(json, values) }
    func json(_ value: Value) -> JSONValue { if case .int(let i) = value { return .int(i) } else { return .null } }
    func writeJSON(_ s: Statement, _ column: Int, into out: inout [UInt8]) { out += String(s.int64(column)).utf8 }
    func syntheticValue(row i: Int, unique: Bool) -> Value { .int(values[i % values.count].intValue ?? 0) }
    var emptyValues: [Value] { values.prefix(1).map { .int($0.intValue ?? 0) } }
}

/// The manifest's own spelling of a raw value (Swift stores an enum's rawValue; an equivalent spelling
/// of a text value matches), or why the JSON value is none of them.
func enumValue(_ json: JSONValue, _ values: [JSONValue]) throws(ValueMismatch) -> Value {
    guard let match = values.first(where: { $0 == json }) else {
        let list = values.map { JSONWriter.string($0) }.joined(separator: ", ")
        throw ValueMismatch(expectation: "one of \(list), found \(JSONWriter.string(json))")
    }
    if let i = match.intValue { return .int(i) }
    return .string(match.stringValue ?? "")
}

/// `CHECK (column IN (…))` over an enum's raw values.
func enumCheck(_ column: String, _ values: [JSONValue]) -> String {
    let list = values.compactMap { raw -> String? in (try? enumValue(raw, values)).map { SchemaDDL.sqlLiteral($0.databaseValue) } }
    return "CHECK (\(column) IN (\(list.joined(separator: ", "))))"
}
