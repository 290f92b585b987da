import Foundation
import Vein

/// An enum stored by its raw value (String or Int), checked against its cases (the manifest's
/// `values`). `CaseIterable` gives the cases; declaring this protocol synthesizes it. So does it `Codable`
/// (from the raw value), which a `#Predicate` needs to compare the field with a value
/// (`$0.fileType == png`): Foundation's predicate expressions hold only Codable values.
public protocol RawRepresentablePersistable: FieldValue, RawRepresentable, CaseIterable, Codable where RawValue: RawFieldValue {}

/// The raw value types an enum field may have.
public protocol RawFieldValue: FieldValue {
    var jsonValue: JSONValue { get }
}
extension String: RawFieldValue { public var jsonValue: JSONValue { .string(self) } }
extension Int: RawFieldValue { public var jsonValue: JSONValue { .int(Int64(self)) } }

extension RawRepresentablePersistable {
    public static var fieldKind: FieldKind { FieldKind(.enum, enumValues: allCases.map(\.rawValue.jsonValue)) }
    public var fieldValue: Value { rawValue.fieldValue }
    public init(fieldValue: Value) throws {
        guard let value = Self(rawValue: try RawValue(fieldValue: fieldValue)) else {
            throw FieldValueMismatch(expected: "\(Self.self)", found: fieldValue)
        }
        self = value
    }
}

/// A Codable value stored as canonical JSON (the manifest's `json` type).
public protocol CodablePersistable: FieldValue, Codable {}

extension CodablePersistable {
    public static var fieldKind: FieldKind { FieldKind(.json) }
    public var fieldValue: Value { JSONField.encode(self) }
    public func encodedFieldValue() throws -> Value { try JSONField.encoded(self) }
    public init(fieldValue: Value) throws { self = try JSONField.decode(fieldValue) }
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

    /// The JSON text of `value`; throws for a value that cannot be JSON (a non-finite Double).
    static func encoded<T: Encodable>(_ value: T) throws -> Value {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return .string(String(decoding: try encoder.encode(value), as: UTF8.self))
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
