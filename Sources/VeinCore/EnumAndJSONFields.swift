import Foundation
import Vein

/// An enum stored by its raw value (String or Int), checked against its cases (the manifest's
/// `values`). `CaseIterable` gives the cases; declaring this protocol synthesizes it. So does it `Codable`
/// (from the raw value), which a `#Predicate` needs to compare the field with a value
/// (`$0.fileType == png`): Foundation's predicate expressions hold only Codable values.
/// Optional: an enum declared `String, Codable` (SwiftData's spelling) is stored the same way, and as an
/// `enum` field too when it is `CaseIterable`.
public protocol RawRepresentablePersistable: FieldValue, RawRepresentable, CaseIterable, Codable where RawValue: RawFieldValue {}

/// The raw value types an enum field may have.
public protocol RawFieldValue: FieldValue {
    var jsonValue: JSONValue { get }
}
extension String: RawFieldValue { public var jsonValue: JSONValue { .string(self) } }
extension Int: RawFieldValue { public var jsonValue: JSONValue { .int(Int64(self)) } }

extension RawRepresentablePersistable {
    public static var fieldKind: FieldKind { RawValueCoding<Self>.fieldKind }
    public var fieldValue: Value { rawValue.fieldValue }
    public init(fieldValue: Value) throws { self = try RawValueCoding<Self>.decoded(fieldValue) }
}

/// A Codable value stored as canonical JSON (the manifest's `json` type). Optional: any Codable type
/// is stored so without it.
public protocol CodablePersistable: FieldValue, Codable {}

extension CodablePersistable {
    public static var fieldKind: FieldKind { JSONCoding<Self>.fieldKind }
    public var fieldValue: Value { JSONField.encode(self) }
    public func encodedFieldValue() throws -> Value { try JSONCoding<Self>.encoded(self) }
    public init(fieldValue: Value) throws { self = try JSONCoding<Self>.decoded(fieldValue) }
}

extension Array: FieldValue where Element: Codable {
    public static var fieldKind: FieldKind { FieldKind(.json) }
    public var fieldValue: Value { JSONField.encode(self) }
    public func encodedFieldValue() throws -> Value { try JSONField.encoded(self) }
    public init(fieldValue: Value) throws { self = try JSONField.decode(fieldValue) }
}

extension Dictionary: FieldValue where Key == String, Value: Codable {
    public static var fieldKind: FieldKind { FieldKind(.json) }
    public var fieldValue: Vein.Value { JSONField.encode(self) }
    public func encodedFieldValue() throws -> Vein.Value { try JSONField.encoded(self) }
    public init(fieldValue: Vein.Value) throws { self = try JSONField.decode(fieldValue) }
}

/// JSON text in and out of Codable values; the engine puts it in canonical form when it is stored.
enum JSONField {
    static func encode<T: Encodable>(_ value: T) -> Value {
        do {
            return try encoded(value)
        } catch {
            // Only a value that cannot be JSON (a non-finite Double) gets here.
            preconditionFailure("Vein: \(T.self) cannot be stored as JSON: \(error)")
        }
    }

    /// The JSON text of `value`; throws for a value that cannot be JSON (a non-finite Double). Object keys
    /// are sorted, and so are the elements of a set at any depth (SetSortingEncoder.swift), which would
    /// otherwise come in hash order (a different order in each process): an export stays byte-identical,
    /// and a value assigned again unchanged is not a change. A set field's elements are then put in the
    /// order of their canonical texts, as they always were.
    static func encoded<T: Encodable>(_ value: T) throws -> Value {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(setsSorted(value)), as: UTF8.self)
        guard value is any UnorderedCollection, case .array(let elements)? = try? JSONParser.parse(text) else { return .string(text) }
        let sorted = elements.map { JSONWriter.string($0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return .string("[" + sorted.joined(separator: ",") + "]")
    }

    static func decode<T: Decodable>(_ value: Value) throws -> T {
        guard case .string(let text) = value else { throw FieldValueMismatch(expected: "\(T.self) as JSON", found: value) }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}


/// Any JSON value, for a `json` field with no Swift type of its own (what `vein schema --swift` declares).
extension JSONValue: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.json) }
    public var fieldValue: Value { .string(JSONWriter.string(self)) }
    public init(fieldValue: Value) throws {
        guard case .string(let text) = fieldValue else { throw FieldValueMismatch(expected: "JSONValue", found: fieldValue) }
        self = try JSONParser.parse(text)
    }
}
