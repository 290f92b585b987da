import Foundation

/// A field's value in memory: what an object holds, the expression language evaluates and SQL binds.
/// It lives with the schema because each field's codec (`FieldCodec`) reads and writes it.
public enum Value: Equatable, Sendable {
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Double)
    case data(Data)
    case array([Value])

    public var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .string(let s): return .text(s)
        case .int(let i): return .integer(i)
        case .double(let d), .date(let d): return .real(d)
        case .bool(let b): return .integer(b ? 1 : 0)
        case .data(let d): return .blob(d)
        case .array(let items): return .text(JSONWriter.string(.array(items.map { .string($0.stringValue ?? "") })))
        }
    }

    var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
}
