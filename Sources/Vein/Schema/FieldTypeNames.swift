import Foundation

@_exported import VeinFieldTypes

/// The engine's questions about a field type, answered from its facts (VeinFieldTypes) and its codec.
extension FieldType {
    /// The declared column type, which is also SQLite's affinity for it (the codec's).
    public func columnType(enumValues: [JSONValue]) -> String { codec(enumValues: enumValues).columnType }

    package static var namesList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Names other languages and databases use for Vein's types, for "did you mean" hints.
    static let aliases: [String: FieldType] = Dictionary(
        uniqueKeysWithValues: allCases.flatMap { type in type.facts.aliases.map { ($0, type) } })
}

/// Why a JSON value does not fit a field (the text after "expected").
package struct ValueMismatch: Error, Equatable, Sendable {
    public let expectation: String
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
