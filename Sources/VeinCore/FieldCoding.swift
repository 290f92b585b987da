import Foundation
import Vein

/// How one kind of declared Swift type becomes the engine's value and back, and what it is in the
/// manifest. Generated code never names a coding: it calls an overloaded entry point with the declared
/// type (FieldTypeOverloads.swift), and overload resolution picks the coding, since @Model sees only the
/// syntax of a type and cannot tell a Codable struct from a model or an enum.
protocol FieldCoding {
    associatedtype Declared
    static var fieldKind: FieldKind { get }
    static func encoded(_ value: Declared) throws -> Value
    static func decoded(_ value: Value) throws -> Declared
}

/// A type that says itself how it is stored (the field types of docs/store-format.md, `RawRepresentablePersistable`, `CodablePersistable`).
enum FieldValueCoding<T: FieldValue>: FieldCoding {
    static var fieldKind: FieldKind { T.fieldKind }
    static func encoded(_ value: T) throws -> Value { try value.encodedFieldValue() }
    static func decoded(_ value: Value) throws -> T { try T(fieldValue: value) }
}

/// An enum with a String or Int raw value, stored as the raw value, with no protocol of Vein's. With
/// `CaseIterable` it is an `enum` field whose `values` the engine checks; without, SwiftData needs no such
/// conformance, so it is a field of the raw value's type (`string` or `int`) and any raw value is stored.
enum RawValueCoding<T: RawRepresentable & Codable>: FieldCoding where T.RawValue: RawFieldValue {
    static var fieldKind: FieldKind {
        guard let cases = T.self as? any CaseIterable.Type else { return FieldKind(T.RawValue.fieldKind.type) }
        return FieldKind(.enum, enumValues: rawValues(of: cases))
    }

    private static func rawValues<C: CaseIterable>(of type: C.Type) -> [JSONValue] {
        type.allCases.compactMap { ($0 as? T)?.rawValue.jsonValue }
    }

    static func encoded(_ value: T) throws -> Value { value.rawValue.fieldValue }

    static func decoded(_ value: Value) throws -> T {
        guard let decoded = T(rawValue: try T.RawValue(fieldValue: value)) else {
            throw FieldValueMismatch(expected: "\(T.self)", found: value)
        }
        return decoded
    }
}

/// Any other Codable value (a struct, `URL`, `Set`, an enum with payloads), stored as canonical JSON, as
/// SwiftData stores such values.
enum JSONCoding<T: Codable>: FieldCoding {
    static var fieldKind: FieldKind { FieldKind(.json) }
    static func encoded(_ value: T) throws -> Value { try JSONField.encoded(value) }
    static func decoded(_ value: Value) throws -> T { try JSONField.decode(value) }
}

/// An optional of any of the above: nil is the engine's null, not the JSON text `null`.
enum OptionalCoding<Wrapped: FieldCoding>: FieldCoding {
    static var fieldKind: FieldKind {
        var kind = Wrapped.fieldKind
        kind.isOptional = true
        return kind
    }
    static func encoded(_ value: Wrapped.Declared?) throws -> Value { try value.map(Wrapped.encoded) ?? .null }
    static func decoded(_ value: Value) throws -> Wrapped.Declared? { value == .null ? nil : try Wrapped.decoded(value) }
}
