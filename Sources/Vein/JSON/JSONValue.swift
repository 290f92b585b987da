import Foundation

/// A JSON document as a tree that keeps the order of object members.
///
/// Order matters to Vein: a manifest's fields become columns in the order written, and exports list fields
/// in schema order. Foundation's JSONSerialization returns unordered dictionaries, hence this type.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// An integer literal that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's kind, for error messages ("expected a string, found an array").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var intValue: Int64? { if case .int(let i) = self { return i } else { return nil } }
    /// The value of any number, integer or not.
    public var numberValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}

/// A JSON object's members in document order. Keys are unique (the parser rejects duplicates).
public struct JSONObject: Equatable, Sendable, Sequence {
    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: JSONValue
    }

    public private(set) var members: [Member] = []

    public init() {}
    public init(_ members: [(String, JSONValue)]) {
        for (k, v) in members { self[k] = v }
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Appends a member the caller knows is not there yet (the parser, which has just checked).
    mutating func appendNew(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    /// The same members with keys in code-point order (canonical JSON).
    public func sortedByKey() -> JSONObject {
        var copy = self
        copy.members.sort { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) }
        return copy
    }
}
