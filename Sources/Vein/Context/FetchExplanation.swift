/// What a fetch would run (`ModelContext.explain`): its SQL and arguments, SQLite's query plan for it, and
/// the parts evaluated in memory after it, where SQL cannot give Swift's answer.
public struct FetchExplanation: Sendable {
    public let sql: String
    public let arguments: [DatabaseValue]
    public let queryPlan: [String]
    public let inMemory: [String]

    /// For a person: the SQL, its arguments, the plan, what is left to memory.
    public var lines: [String] {
        ["SQL: \(sql)"]
            + (arguments.isEmpty ? [] : ["arguments: " + arguments.map(\.shownInExplanation).joined(separator: ", ")])
            + ["query plan:"] + queryPlan.map { "  \($0)" }
            + (inMemory.isEmpty ? ["in memory: nothing (SQL gives the answer)"] : ["in memory:"] + inMemory.map { "  \($0)" })
    }
}

extension DatabaseValue {
    var shownInExplanation: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let v): return SQL.quoteString(v)
        case .blob(let v): return "x'" + v.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() + "'"
        }
    }
}
