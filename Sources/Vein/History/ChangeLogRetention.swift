import Foundation

/// How long a store's change log keeps its transactions (docs/history.md#retention), kept in
/// `_vein_meta.historyRetention` and applied at each commit that writes a record: the oldest transactions
/// past it are pruned in that commit (`ChangeLogPruning`), so the log does not grow without end and a read
/// from before them says it expired.
package enum ChangeLogRetention: Equatable, Sendable, CustomStringConvertible {
    /// Transactions younger than this many days.
    case days(Int)
    /// The newest this many transactions.
    case count(Int)
    /// The newest transactions whose change records hold at most this many bytes together (the newest one
    /// is kept whatever its size). The total is kept in `_vein_meta.historyBytes` while this policy holds,
    /// so a commit does not measure the whole log.
    case size(Int)
    /// Everything, until `vein history prune`.
    case all

    static let metaKey = "historyRetention"
    static let bytesKey = "historyBytes"
    /// A new log keeps a week.
    package static let `default` = ChangeLogRetention.days(7)

    /// `days:7`, `count:1000`, `all`: the stored form.
    package var stored: String {
        switch self {
        case .days(let n): return "days:\(n)"
        case .count(let n): return "count:\(n)"
        case .size(let n): return "size:\(n)"
        case .all: return "all"
        }
    }

    package init?(stored text: String) {
        if text == "all" { self = .all; return }
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let n = Int(parts[1]), n >= 0 else { return nil }
        switch parts[0] {
        case "days": self = .days(n)
        case "count": self = .count(n)
        case "size": self = .size(n)
        default: return nil
        }
    }

    package var description: String {
        switch self {
        case .days(let n): return "transactions of the last \(n == 1 ? "day" : "\(n) days")"
        case .count(let n): return "the newest \(n == 1 ? "transaction" : "\(n) transactions")"
        case .size(let n): return "the newest transactions within \(Phrase.count(n, "byte")) of changes"
        case .all: return "every transaction, until it is pruned"
        }
    }

    /// The store's policy: the default when none is set (a log started before policies).
    package static func current(in database: Database) throws -> ChangeLogRetention {
        guard let text = try database.scalar(#"SELECT "value" FROM "_vein_meta" WHERE "key" = ?"#, [.text(metaKey)])?.string else {
            return .default
        }
        guard let policy = ChangeLogRetention(stored: text) else { throw ChangeLogError.damaged("_vein_meta.\(metaKey) is \"\(text)\"") }
        return policy
    }

    package func store(in database: Database) throws {
        try database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#, [.text(Self.metaKey), .text(stored)])
        if case .size = self { try Self.storeTotal(try Self.measuredTotal(in: database), in: database) } else {
            try database.execute(#"DELETE FROM "_vein_meta" WHERE "key" = ?"#, [.text(Self.bytesKey)])
        }
    }

    /// Under a size policy, adds the bytes of change records a commit wrote to the kept total; nothing
    /// under another policy.
    func noteWritten(_ bytes: Int, in database: Database) throws {
        guard case .size = self, bytes > 0 else { return }
        try database.execute(#"UPDATE "_vein_meta" SET "value" = CAST("value" AS INTEGER) + ? WHERE "key" = ?"#,
                             [.integer(Int64(bytes)), .text(Self.bytesKey)])
    }

    /// The kept total of the log's change records, measured when there is none (a log copied or restored).
    static func total(in database: Database) throws -> Int64 {
        if let text = try database.scalar(#"SELECT "value" FROM "_vein_meta" WHERE "key" = ?"#, [.text(bytesKey)])?.string, let total = Int64(text) {
            return total
        }
        let total = try measuredTotal(in: database)
        try storeTotal(total, in: database)
        return total
    }

    static func measuredTotal(in database: Database) throws -> Int64 {
        try database.scalar(#"SELECT CAST(total(length("changes")) AS INTEGER) FROM "\#(ChangeLogSchema.changes)""#)?.int64 ?? 0
    }

    static func storeTotal(_ total: Int64, in database: Database) throws {
        try database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#, [.text(bytesKey), .text(String(total))])
    }

    /// A change to the log's records other than appending and pruning (a purge): the kept total, when
    /// there is one, is measured again.
    static func recount(in database: Database) throws {
        guard try database.scalar(#"SELECT count(*) FROM "_vein_meta" WHERE "key" = ?"#, [.text(bytesKey)])?.int64 == 1 else { return }
        try storeTotal(try measuredTotal(in: database), in: database)
    }

    /// Prunes what the policy no longer keeps, in the caller's write transaction; returns how many
    /// transactions went. Reads the oldest first, so a commit with nothing to prune costs two lookups.
    @discardableResult
    package func apply(in database: Database, now: Date = Date()) throws -> Int {
        switch self {
        case .all:
            return 0
        case .size(let limit):
            var excess = try Self.total(in: database) - Int64(limit)
            guard excess > 0 else { return 0 }
            // Oldest first, whole transactions, never the newest: until what goes covers the excess.
            let newest = try database.scalar(#"SELECT max("token") FROM "\#(ChangeLogSchema.transactions)""#)?.int64 ?? 0
            var through: Int64?
            for row in try database.rows(#"SELECT "token", total(length("changes")) FROM "\#(ChangeLogSchema.changes)" WHERE "token" < ? GROUP BY "token" ORDER BY "token""#,
                                         [.integer(newest)]) {
                guard excess > 0, let token = row[0].int64 else { break }
                through = token
                excess -= Int64(row[1].double ?? 0)
            }
            guard let through else { return 0 }
            return try ChangeLogPruning.prune(in: database, through: through)
        case .count(let n):
            guard let through = try ChangeLogPruning.lastToken(keepingNewest: n, in: database) else { return 0 }
            return try ChangeLogPruning.prune(in: database, through: through)
        case .days(let n):
            let cutoff = HybridClock.lowerBound(of: now.addingTimeInterval(-Double(n) * 86_400))
            let oldest = try database.scalar(#"SELECT "clock" FROM "\#(ChangeLogSchema.transactions)" ORDER BY "token" LIMIT 1"#)?.int64
            guard let oldest, oldest < cutoff else { return 0 }
            // Clock times grow with tokens: walk the old end in token order until one is young enough.
            var through: Int64?
            let statement = try database.cachedStatement(
                #"SELECT "token", "clock" FROM "\#(ChangeLogSchema.transactions)" WHERE "token" > ? ORDER BY "token" LIMIT 256"#)
            var after: Int64 = -1
            scan: while true {
                try statement.bind([.integer(after)])
                var rows = 0
                while try statement.step() {
                    rows += 1
                    let token = statement.int64(0)
                    guard statement.int64(1) < cutoff else { break scan }
                    through = token
                    after = token
                }
                statement.reset()
                if rows < 256 { break }
            }
            statement.reset()
            guard let through else { return 0 }
            return try ChangeLogPruning.prune(in: database, through: through)
        }
    }
}
