import Foundation

/// The field types of SPEC §2 and how each is stored.
public enum FieldType: String, CaseIterable, Sendable {
    case string, int, double, bool, date, data, uuid
    case `enum`
    case json

    /// The declared column type, which is also SQLite's affinity for it.
    public func columnType(enumValues: [JSONValue]) -> String {
        switch self {
        case .string, .uuid, .json: return "TEXT"
        case .int, .bool: return "INTEGER"
        case .double, .date: return "REAL"
        case .data: return "BLOB"
        case .enum: return enumValues.first?.intValue != nil ? "INTEGER" : "TEXT"
        }
    }

    public static var namesList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Names other languages and databases use for Vein's types, for "did you mean" hints.
    static let aliases: [String: FieldType] = [
        "integer": .int, "int64": .int, "long": .int, "boolean": .bool, "float": .double, "real": .double,
        "number": .double, "text": .string, "str": .string, "blob": .data, "bytes": .data,
        "timestamp": .date, "datetime": .date, "object": .json,
    ]
}

/// Why a JSON value does not fit a field (the text after "expected").
public struct ValueMismatch: Error, Equatable, Sendable {
    public let expectation: String
}

extension FieldSchema {
    /// Converts a JSON value (as found in a manifest default or an import file) to the column value,
    /// checking it against the field's type. `null` is accepted only for optional fields.
    public func databaseValue(fromJSON json: JSONValue) throws(ValueMismatch) -> DatabaseValue {
        if case .null = json {
            guard isOptional else { throw ValueMismatch(expectation: "a value (the field is not optional), found null") }
            return .null
        }
        func mismatch(_ expected: String) -> ValueMismatch {
            ValueMismatch(expectation: "\(expected), found \(json.kindName)")
        }
        switch type {
        case .string:
            guard let s = json.stringValue else { throw mismatch("a string") }
            return .text(NormalForm.text(s))  // as the context stores strings (see SQLCompiler)
        case .int:
            guard let i = json.intValue else { throw mismatch("an integer") }
            return .integer(i)
        case .double:
            guard let d = json.numberValue else { throw mismatch("a number") }
            if let bad = json.firstNonFiniteNumber { throw ValueMismatch(expectation: "a finite number, found \(bad)") }
            return .real(NormalForm.double(d))  // as the context stores doubles
        case .bool:
            guard let b = json.boolValue else { throw mismatch("true or false") }
            return .integer(b ? 1 : 0)
        case .date:
            guard let s = json.stringValue else { throw mismatch("an ISO 8601 date string") }
            guard let seconds = ISODate.parse(s) else {
                throw ValueMismatch(expectation: "an ISO 8601 date such as \"2026-01-31T12:00:00.000000Z\", found \"\(s)\"")
            }
            return .real(seconds)
        case .data:
            guard let s = json.stringValue else { throw mismatch("a base64 string") }
            guard let data = Data(base64Encoded: s) else { throw ValueMismatch(expectation: "base64 data, found \"\(s.prefix(20))\"") }
            return .blob(data)
        case .uuid:
            guard let s = json.stringValue else { throw mismatch("a UUID string") }
            guard let uuid = UUID(uuidString: s) else { throw ValueMismatch(expectation: "a UUID, found \"\(s)\"") }
            return .text(uuid.uuidString)
        case .enum:
            // Stored as the manifest spells it, as the context stores it.
            guard let match = enumValues.first(where: { $0 == json }) else {
                let list = enumValues.map { JSONWriter.string($0) }.joined(separator: ", ")
                throw ValueMismatch(expectation: "one of \(list), found \(JSONWriter.string(json))")
            }
            if let i = match.intValue { return .integer(i) }
            return .text(match.stringValue ?? "")
        case .json:
            if let bad = json.firstNonFiniteNumber { throw ValueMismatch(expectation: "a finite number, found \(bad)") }
            return .text(JSONWriter.string(json.canonicalized()))
        }
    }

    /// The JSON form of a column value (export, `vein schema`), the inverse of `databaseValue(fromJSON:)`.
    public func jsonValue(fromDatabase value: DatabaseValue) -> JSONValue {
        if case .null = value { return .null }
        switch type {
        case .string, .uuid: return .string(value.string ?? "")
        case .int: return .int(value.int64 ?? 0)
        case .double: return .double(value.double ?? 0)
        case .bool: return .bool((value.int64 ?? 0) != 0)
        case .date: return .string(ISODate.format(value.double ?? 0))
        case .data: return .string((value.data ?? Data()).base64EncodedString())
        case .enum:
            if let i = value.int64 { return .int(i) }
            return .string(value.string ?? "")
        case .json: return (try? JSONParser.parse(value.string ?? "null")) ?? .null
        }
    }
}

extension JSONValue {
    /// "Infinity", "-Infinity" or "NaN" for the first non-finite number inside (JSON5 has them, JSON
    /// does not, and the writer would turn them into null); nil when there is none.
    var firstNonFiniteNumber: String? {
        switch self {
        case .double(let d) where !d.isFinite: return d.isNaN ? "NaN" : d < 0 ? "-Infinity" : "Infinity"
        case .array(let items): return items.lazy.compactMap(\.firstNonFiniteNumber).first
        case .object(let object): return object.lazy.compactMap(\.value.firstNonFiniteNumber).first
        default: return nil
        }
    }

    /// The same value with every object's keys sorted: the canonical form of `json` field values.
    public func canonicalized() -> JSONValue {
        switch self {
        case .array(let items): return .array(items.map { $0.canonicalized() })
        case .object(let object):
            var sorted = JSONObject()
            for member in object.sortedByKey() { sorted[member.key] = member.value.canonicalized() }
            return .object(sorted)
        default: return self
        }
    }
}
