import Foundation
import Vein

/// What a field's Swift type is in the manifest (docs/store-format.md).
public struct FieldKind: Sendable, Equatable {
    public var type: FieldType
    public var isOptional: Bool
    /// The allowed raw values of an `enum` field.
    public var enumValues: [JSONValue]

    public init(_ type: FieldType, isOptional: Bool = false, enumValues: [JSONValue] = []) {
        self.type = type
        self.isOptional = isOptional
        self.enumValues = enumValues
    }
}

/// A Swift type a field can hold: a field type's Swift name (`FieldType.facts`, VeinFieldTypes),
/// `RawRepresentablePersistable` enums, `CodablePersistable` values (as `json`), arrays and string-keyed
/// dictionaries of Codable values (as `json`), and optionals of all of these.
public protocol FieldValue {
    static var fieldKind: FieldKind { get }
    /// The value as the engine holds it (`Value`).
    var fieldValue: Value { get }
    /// The Swift value from the engine's; throws when the stored value is not of this type.
    init(fieldValue: Value) throws
    /// `fieldValue`, or the error that stops `fieldValue` (a `json` value with no JSON form: a non-finite
    /// Double), for the throwing setter `setValue(_:for:)`.
    func encodedFieldValue() throws -> Value
}

extension FieldValue {
    public func encodedFieldValue() throws -> Value { fieldValue }
}

/// A stored value that does not fit the Swift type a model declares (a schema and a class out of step).
public struct FieldValueMismatch: Error, CustomStringConvertible {
    public let expected: String
    public let found: Value
    public var description: String { "a stored value \(found) is not a \(expected)" }
}

extension String: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.string) }
    public var fieldValue: Value { .string(self) }
    public init(fieldValue: Value) throws {
        guard case .string(let s) = fieldValue else { throw FieldValueMismatch(expected: "String", found: fieldValue) }
        self = s
    }
}

extension Int: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.int) }
    public var fieldValue: Value { .int(Int64(self)) }
    public init(fieldValue: Value) throws {
        guard case .int(let i) = fieldValue else { throw FieldValueMismatch(expected: "Int", found: fieldValue) }
        self = Int(i)
    }
}

extension Double: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.double) }
    public var fieldValue: Value { .double(self) }
    public init(fieldValue: Value) throws {
        switch fieldValue {
        case .double(let d): self = d
        case .int(let i): self = Double(i)
        default: throw FieldValueMismatch(expected: "Double", found: fieldValue)
        }
    }
}

extension Bool: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.bool) }
    public var fieldValue: Value { .bool(self) }
    public init(fieldValue: Value) throws {
        guard case .bool(let b) = fieldValue else { throw FieldValueMismatch(expected: "Bool", found: fieldValue) }
        self = b
    }
}

extension Date: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.date) }
    public var fieldValue: Value { .date(timeIntervalSince1970) }
    public init(fieldValue: Value) throws {
        guard case .date(let seconds) = fieldValue else { throw FieldValueMismatch(expected: "Date", found: fieldValue) }
        self = Date(timeIntervalSince1970: seconds)
    }
}

extension Data: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.data) }
    public var fieldValue: Value { .data(self) }
    public init(fieldValue: Value) throws {
        guard case .data(let d) = fieldValue else { throw FieldValueMismatch(expected: "Data", found: fieldValue) }
        self = d
    }
}

extension UUID: FieldValue {
    public static var fieldKind: FieldKind { FieldKind(.uuid) }
    public var fieldValue: Value { .string(uuidString) }
    public init(fieldValue: Value) throws {
        guard case .string(let s) = fieldValue, let uuid = UUID(uuidString: s) else {
            throw FieldValueMismatch(expected: "UUID", found: fieldValue)
        }
        self = uuid
    }
}

extension Optional: FieldValue where Wrapped: FieldValue {
    public static var fieldKind: FieldKind {
        var kind = Wrapped.fieldKind
        kind.isOptional = true
        return kind
    }
    public var fieldValue: Value { map(\.fieldValue) ?? .null }
    public func encodedFieldValue() throws -> Value { try map { try $0.encodedFieldValue() } ?? .null }
    public init(fieldValue: Value) throws {
        self = fieldValue == .null ? nil : try Wrapped(fieldValue: fieldValue)
    }
}
