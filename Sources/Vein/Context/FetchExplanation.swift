/// What a fetch would run (`ObjectContext.explain`): its SQL and arguments, SQLite's query plan for it, and
/// the parts evaluated in memory after it, where SQL cannot give Swift's answer.
public struct FetchExplanation: Sendable {
    public let sql: String
    public let arguments: [DatabaseValue]
    public let queryPlan: [String]
    public let inMemory: [String]

    /// This explanation with `steps` more done in memory (VeinCore's own, after the engine's fetch).
    package func adding(inMemory steps: [String]) -> FetchExplanation {
        FetchExplanation(sql: sql, arguments: arguments, queryPlan: queryPlan, inMemory: inMemory + steps)
    }

    /// For a person: the SQL, its arguments, the plan, what is left to memory.
    public var lines: [String] { lines(listingAtMost: nil) }

    /// How many arguments (and placeholders in a row) a shortened explanation shows.
    package static let shownArguments = 10

    /// `lines`; with `limit`, a list of more arguments than that (the ids of pending changes, a long
    /// `contains` list), and a longer run of `?, ?, …` in the SQL, show their first `limit` and "… N more".
    public func lines(listingAtMost limit: Int?) -> [String] {
        var shownArguments = arguments.prefix(limit ?? arguments.count).map(\.shownInExplanation)
        if shownArguments.count < arguments.count { shownArguments.append("… \(arguments.count - shownArguments.count) more") }
        return ["SQL: \(limit.map { Self.shortenedPlaceholders(sql, limit: $0) } ?? sql)"]
            + (arguments.isEmpty ? [] : ["arguments: " + shownArguments.joined(separator: ", ")])
            + ["query plan:"] + queryPlan.map { "  \($0)" }
            + (inMemory.isEmpty ? ["in memory: nothing (SQL gives the answer)"] : ["in memory:"] + inMemory.map { "  \($0)" })
    }

    /// Each run of more than `limit` placeholders (`?, ?, ?`) cut to `limit` of them and "… N more".
    static func shortenedPlaceholders(_ sql: String, limit: Int) -> String {
        let run = "?, "
        var out = "", rest = Substring(sql)
        while let start = rest.range(of: "?") {
            out += rest[..<start.lowerBound]
            rest = rest[start.lowerBound...]
            var count = 1
            var end = rest.index(after: rest.startIndex)
            while rest[end...].hasPrefix(", ?") {
                count += 1
                end = rest.index(end, offsetBy: 3)
            }
            out += count > limit ? String(repeating: run, count: limit) + "… \(count - limit) more" : String(rest[..<end])
            rest = rest[end...]
        }
        return out + rest
    }
}

extension DatabaseValue {
    var shownInExplanation: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let v): return SQL.quoteString(v)
        case .blob(let v): return "x'" + Hex.encode(v) + "'"
        }
    }
}
