import Foundation

/// A value as SQLite stores it: one of its five storage classes.
public enum DatabaseValue: Equatable, Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    public var int64: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    public var double: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }
    public var string: String? { if case .text(let v) = self { return v } else { return nil } }
    public var data: Data? { if case .blob(let v) = self { return v } else { return nil } }
}

// No ExpressibleByNilLiteral: `nil` must always mean Optional's none ("no value"), never `.null` (a NULL).
extension DatabaseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
}
