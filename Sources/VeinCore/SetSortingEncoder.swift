import Foundation

// A `Set` encodes its elements in hash order, and Swift seeds its hashes per process: the same value gives
// another JSON text in the next run, so a stored Codable value holding a set would look changed when it is
// not, and two exports of one store would differ. `JSONField.encoded` runs JSONEncoder over
// `SetsSorted(value)`, which hands JSONEncoder every nested value through the containers below: a set, at
// any depth, is written in the order of its elements' JSON texts; everything else reaches JSONEncoder as
// it would have, so a value with no set encodes to exactly the text it always did.

/// A collection whose order means nothing, so its JSON is written in sorted order.
protocol UnorderedCollection {
    var unorderedElements: [any Encodable] { get }
}

extension Set: UnorderedCollection where Element: Encodable {
    var unorderedElements: [any Encodable] { Array(self) }
}

/// `value` as JSONEncoder should be given it: a set as `SortedElements`; a type JSONEncoder encodes in a
/// way of its own (Date, Data, URL, Decimal) or a scalar as itself; anything else wrapped, so that its
/// nested values come back through here.
func setsSorted(_ value: any Encodable) -> any Encodable {
    switch value {
    case let set as any UnorderedCollection: return SortedElements(elements: set.unorderedElements)
    case is Date, is Data, is URL, is Decimal, is String, is Bool, is Double, is Float, is Int, is Int8, is Int16,
         is Int32, is Int64, is UInt, is UInt8, is UInt16, is UInt32, is UInt64:
        return value
    default: return SetsSorted(value: value)
    }
}

/// A value whose sets, at any depth, encode sorted.
struct SetsSorted: Encodable {
    let value: any Encodable
    func encode(to encoder: any Encoder) throws { try value.encode(to: SetSortingEncoder(base: encoder)) }
}

/// A set's elements, in the order of their JSON texts (compared byte by byte).
struct SortedElements: Encodable {
    let elements: [any Encodable]
    func encode(to encoder: any Encoder) throws {
        let textEncoder = JSONEncoder()
        textEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keyed = try elements.map { (text: try textEncoder.encode(setsSorted($0)), element: $0) }
        var container = encoder.unkeyedContainer()
        for (_, element) in keyed.sorted(by: { $0.text.lexicographicallyPrecedes($1.text) }) {
            try container.encode(setsSorted(element))
        }
    }
}

/// The encoder a wrapped value's `encode(to:)` sees: JSONEncoder's, with each container's nested values
/// passed through `setsSorted`.
struct SetSortingEncoder: Encoder {
    let base: any Encoder
    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(SetSortingKeyedContainer(base: base.container(keyedBy: type)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { SetSortingUnkeyedContainer(base: base.unkeyedContainer()) }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SetSortingSingleValueContainer(base: base.singleValueContainer())
    }
}

struct SetSortingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var base: KeyedEncodingContainer<Key>
    var codingPath: [any CodingKey] { base.codingPath }

    mutating func encodeNil(forKey key: Key) throws { try base.encodeNil(forKey: key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try base.encode(setsSorted(value), forKey: key) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(SetSortingKeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType, forKey: key)))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        SetSortingUnkeyedContainer(base: base.nestedUnkeyedContainer(forKey: key))
    }
    mutating func superEncoder() -> any Encoder { SetSortingEncoder(base: base.superEncoder()) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { SetSortingEncoder(base: base.superEncoder(forKey: key)) }
}

struct SetSortingUnkeyedContainer: UnkeyedEncodingContainer {
    var base: any UnkeyedEncodingContainer
    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int { base.count }

    mutating func encodeNil() throws { try base.encodeNil() }
    mutating func encode<T: Encodable>(_ value: T) throws { try base.encode(setsSorted(value)) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(SetSortingKeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType)))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        SetSortingUnkeyedContainer(base: base.nestedUnkeyedContainer())
    }
    mutating func superEncoder() -> any Encoder { SetSortingEncoder(base: base.superEncoder()) }
}

struct SetSortingSingleValueContainer: SingleValueEncodingContainer {
    var base: any SingleValueEncodingContainer
    var codingPath: [any CodingKey] { base.codingPath }

    mutating func encodeNil() throws { try base.encodeNil() }
    mutating func encode<T: Encodable>(_ value: T) throws { try base.encode(setsSorted(value)) }
}
