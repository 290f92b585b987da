import Foundation
import Vein

/// `vein history`: what a store's change log recorded (docs/history.md#reading-it).
enum HistoryCommand {
    enum Format: String, CaseIterable {
        case text, json, jsonl
    }

    static let since: OptionKey<String?> = .value("since", value: "TOKEN|TIME",
        help: "Only commits after token TOKEN, or at or after TIME (ISO 8601, with Z or an offset).")
    static let model: OptionKey<String?> = .value("model", value: "MODEL", help: "Only changes of MODEL's rows and lists.")
    static let id: OptionKey<String?> = .value("id", value: "ID", help: "Only changes of this object, and links naming it: its life.")
    static let author: OptionKey<String?> = .value("author", value: "AUTHOR", help: "Only commits by AUTHOR.")
    static let format: OptionKey<Format?> = .choice("format", value: "FORMAT",
        help: "text (the default), json (one document, as --json) or jsonl (a commit per line).", of: Format.self)

    static let spec: CommandSpec = CommandSpec(
        name: "history",
        abstract: "Show what changed in a store, when and by whom, from its change log",
        discussion: """
            Lists the commits STORE's change log holds, oldest first: each with its token (which orders \
            commits and is what --since takes), its time, its author and what it changed. A store keeps a log \
            when it was created with 'vein create --history', or from when 'vein history enable' started one. A migration is one commit naming its stage; \
            writes another program made to the store (the sqlcipher shell) are not in the log, and a line says \
            how many rows it missed and where. Opens STORE read-only in effect.
            """,
        arguments: [SharedOptions.store],
        options: [since, model, id, author, format] + SharedOptions.keyOptions + [SharedOptions.json],
        subcommands: [HistoryEnableCommand.spec, HistoryPruneCommand.spec, HistoryRetentionCommand.spec, HistoryPurgeCommand.spec],
        examples: [
            ("vein history blog.vein", "Every commit the log holds."),
            ("vein history blog.vein --id 01J9Z3NDEKTSV4RRFFQ69G5FAV", "One object's life."),
            ("vein history blog.vein --since 2026-12-01T00:00:00Z --format jsonl", "What changed since a time, a commit per line."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        var reader = ChangeLogReader()
        if let since = invocation[since] {
            switch HistoryPoint(parsing: since) {
            case .token(let token)?: reader.afterToken = token
            case .time(let date)?: reader.sinceClock = HybridClock.lowerBound(of: date)
            case nil:
                throw UsageError(message: "--since takes a token (a whole number, as 'vein history' prints) or a time "
                                 + "(ISO 8601 with Z or an offset, such as 2026-12-01T09:30:00Z), not \"\(since)\"", command: "history")
            }
        }
        if let name = invocation[model] {
            guard let schema = store.manifest.model(named: name) else {
                throw UsageError(message: "\(store.path) has no model \"\(name)\"", command: "history")
            }
            reader.tables = ChangeLogReader.tables(of: schema, in: store.manifest)
        }
        reader.id = invocation[id]
        reader.author = invocation[author]
        let (transactions, pruned) = try store.transaction(.deferred) {
            (try reader.transactions(in: store.database), try ChangeLogPruning.prunedThrough(in: store.database))
        }
        let console = invocation.console
        if let pruned, reader.afterToken == nil, reader.sinceClock == nil, !invocation.wantsJSON, invocation[format] ?? .text == .text {
            console.out("(pruned through token \(pruned.token))")
        }
        switch invocation.wantsJSON ? .json : invocation[format] ?? .text {
        case .json: console.outJSON(.array(transactions.map { $0.json(manifest: store.manifest) }))
        case .jsonl: for t in transactions { console.out(JSONWriter.string(t.json(manifest: store.manifest))) }
        case .text: for t in transactions { console.out(text(t, manifest: store.manifest)) }
        }
    }

    /// `12  2026-12-06T21:40:03.120000Z  vein query  (1.0.0)` and a line per change.
    static func text(_ transaction: LoggedTransaction, manifest: SchemaManifest) -> String {
        let time = ISODate.format(transaction.date.timeIntervalSince1970)
        var head = "\(transaction.token)  \(time)  \(transaction.author ?? "-")  (\(transaction.schemaVersion))"
        switch transaction.kind {
        case .schema: head += "  migration \(transaction.detail ?? "")"
        case .outside: head += "  \(Phrase.count(Int(transaction.detail ?? "") ?? 0, "row write")) by another program, not in the log"
        case .changes: break
        }
        let lines = LoggedModelChange.changes(of: transaction, manifest: manifest).map { change -> String in
            if let relationship = change.relationship {
                let position = change.position.map { " at \($0)" } ?? ""
                return "  \(change.kind.rawValue) \(relationship) \(change.id) → \(change.member ?? "")\(position)"
            }
            let fields = change.fields.map { "\($0.key): \(JSONWriter.string($0.value))" }.joined(separator: ", ")
            return "  \(change.kind.rawValue) \(change.model) \(change.id)" + (fields.isEmpty ? "" : "  \(fields)")
        }
        return ([head] + lines).joined(separator: "\n")
    }
}

/// `vein history prune`: removes the log's oldest transactions (docs/history.md#pruning).
enum HistoryPruneCommand {
    static let before: OptionKey<String?> = .value("before", value: "TOKEN|TIME",
        help: "Remove the transactions before token TOKEN, or made before TIME (ISO 8601, with Z or an offset).")
    static let keep: OptionKey<String?> = .value("keep", value: "N", help: "Keep the newest N transactions; remove the rest.")

    static let spec: CommandSpec = CommandSpec(
        name: "prune",
        abstract: "Remove the oldest transactions of a store's change log",
        discussion: """
            Removes, in one transaction, the log's transactions before TOKEN or TIME (--before), or all but the \
            newest N (--keep). The store remembers the last token it removed: a later 'vein history --since' \
            an earlier token or time says the history expired (exit 65) rather than show less than happened.
            """,
        arguments: [SharedOptions.store],
        options: [before, keep] + SharedOptions.keyOptions + [SharedOptions.json],
        examples: [
            ("vein history prune blog.vein --before 2026-11-01T00:00:00Z", "Forget what changed before November."),
            ("vein history prune blog.vein --keep 1000", "Keep the newest 1,000 transactions."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let command = "history prune"
        guard (invocation[before] == nil) != (invocation[keep] == nil) else {
            throw UsageError(message: "name what to remove: --before TOKEN|TIME or --keep N (one of them)", command: command)
        }
        let store = try SharedOptions.openStore(invocation)
        let removed: Int = try store.transaction(.immediate) {
            guard try ChangeLogSchema.isKept(in: store.database) else { throw ChangeLogError.notKept(store.path) }
            let through: Int64?
            if let text = invocation[keep] {
                guard let n = Int(text), n >= 0 else {
                    throw UsageError(message: "--keep takes a whole number of transactions, not \"\(text)\"", command: command)
                }
                through = try ChangeLogPruning.lastToken(keepingNewest: n, in: store.database)
            } else if case .token(let token)? = invocation[before].flatMap(HistoryPoint.init(parsing:)) {
                through = token - 1
            } else if case .time(let date)? = invocation[before].flatMap(HistoryPoint.init(parsing:)) {
                through = try ChangeLogPruning.lastToken(before: HybridClock.lowerBound(of: date), in: store.database)
            } else {
                throw UsageError(message: "--before takes a token (a whole number) or a time (ISO 8601 with Z or an offset), "
                                 + "not \"\(invocation[before] ?? "")\"", command: command)
            }
            guard let through else { return 0 }
            return try ChangeLogPruning.prune(in: store.database, through: through)
        }
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("removed", .int(Int64(removed)))])))
        } else {
            invocation.console.out("removed \(Phrase.count(removed, "transaction")) from the change log")
        }
    }
}

/// `vein history enable`: starts a change log on a store made without one (docs/history.md#keeping-a-log).
enum HistoryEnableCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "enable",
        abstract: "Start keeping a change log on an existing store",
        discussion: """
            Adds the change log's tables and triggers to STORE in one transaction; from then on every commit \
            is recorded, as in a store created with 'vein create --history'. What the store held before is \
            not in the log. A store that keeps a log already is left as it is (exit 65).
            """,
        arguments: [SharedOptions.store],
        options: SharedOptions.keyOptions + [SharedOptions.json],
        examples: [("vein history enable blog.vein", "Remember every change from now on.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation)
        try store.transaction(.immediate) { try ChangeLogSchema.start(in: store.database, manifest: store.manifest, path: store.path) }
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("store", .string(store.path)), ("history", .bool(true))])))
        } else {
            invocation.console.out("\(store.path) keeps a change log from now on")
        }
    }
}

/// `vein history retention`: how long the change log keeps transactions (docs/history.md#retention).
enum HistoryRetentionCommand {
    static let days: OptionKey<String?> = .value("days", value: "N", help: "Keep the transactions of the last N days.")
    static let count: OptionKey<String?> = .value("count", value: "N", help: "Keep the newest N transactions.")
    static let size: OptionKey<String?> = .value("size", value: "BYTES",
        help: "Keep the newest transactions whose changes take at most BYTES (a whole number, or with K, M or G for KiB, MiB, GiB).")
    static let all: OptionKey<Bool> = .flag("all", help: "Keep every transaction (only 'vein history prune' removes any).")

    static let spec: CommandSpec = CommandSpec(
        name: "retention",
        abstract: "Show or set how long a store's change log keeps transactions",
        discussion: """
            Without an option, prints the policy. With one, sets it; each commit that writes to the log then \
            prunes what the policy no longer keeps, in that commit, and later reads from before it say the \
            history expired. A new log keeps the last 7 days.
            """,
        arguments: [SharedOptions.store],
        options: [days, count, size, all] + SharedOptions.keyOptions + [SharedOptions.json],
        examples: [
            ("vein history retention blog.vein", "Show the policy."),
            ("vein history retention blog.vein --days 30", "Keep a month of changes."),
            ("vein history retention blog.vein --size 50M", "Keep the newest changes within 50 MiB."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let command = "history retention"
        let given = [invocation[days] != nil, invocation[count] != nil, invocation[size] != nil, invocation[all]].filter { $0 }.count
        guard given <= 1 else { throw UsageError(message: "give one of --days N, --count N, --size BYTES and --all", command: command) }
        func number(_ text: String, _ option: String) throws -> Int {
            guard let n = Int(text), n >= 1 else {
                throw UsageError(message: "--\(option) takes a whole number from 1, not \"\(text)\"", command: command)
            }
            return n
        }
        func bytes(_ text: String) throws -> Int {
            let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
            let unit = text.last.flatMap { units[Character($0.uppercased())] }
            guard let n = Int(unit == nil ? text : String(text.dropLast())), n >= 1, n <= Int.max / (unit ?? 1) else {
                throw UsageError(message: "--size takes a whole number of bytes from 1, with K, M or G for KiB, MiB or GiB, not \"\(text)\"", command: command)
            }
            return n * (unit ?? 1)
        }
        let policy: ChangeLogRetention? = try invocation[days].map { .days(try number($0, "days")) }
            ?? invocation[count].map { .count(try number($0, "count")) } ?? invocation[size].map { .size(try bytes($0)) }
            ?? (invocation[all] ? .all : nil)
        let store = try SharedOptions.openStore(invocation, mode: policy == nil ? .readOnly : .readWrite)
        let current: ChangeLogRetention = try store.transaction(policy == nil ? .deferred : .immediate) {
            guard try ChangeLogSchema.isKept(in: store.database) else { throw ChangeLogError.notKept(store.path) }
            if let policy {
                try policy.store(in: store.database)
                try policy.apply(in: store.database)
                return policy
            }
            return try ChangeLogRetention.current(in: store.database)
        }
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("retention", .string(current.stored))])))
        } else {
            invocation.console.out("\(store.path) keeps \(current)")
        }
    }
}

/// `vein history purge`: one object's values forgotten by the change log (docs/history.md#purging).
enum HistoryPurgeCommand {
    static let id: OptionKey<String> = .required("id", value: "ID", help: "The object whose values the log forgets.")

    static let spec: CommandSpec = CommandSpec(
        name: "purge",
        abstract: "Remove one object's values from a store's change log",
        discussion: """
            For data that must be forgotten: every change the log holds of the object ID, or of a link naming \
            it, keeps its kind, key and time and loses its values (the fields written, the values a delete \
            preserved, a link's position), in one transaction. The object's row itself is not touched: delete \
            it first. A continuous backup that has not yet sent a purged commit starts a new generation; what \
            it sent before stays in its segments until those generations are removed.
            """,
        arguments: [SharedOptions.store],
        options: [id] + SharedOptions.keyOptions + [SharedOptions.json],
        examples: [("vein history purge blog.vein --id 01J9Z3NDEKTSV4RRFFQ69G5FAV", "Forget what the log held of one post.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let store = try SharedOptions.openStore(invocation)
        let result = try store.transaction(.immediate) { try ChangeLogPurge.purge(id: invocation[id], in: store.database) }
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([("changes", .int(Int64(result.changes))), ("transactions", .int(Int64(result.transactions)))])))
        } else {
            invocation.console.out("removed the values of \(invocation[id]) from \(Phrase.count(result.changes, "change")) "
                                   + "in \(Phrase.count(result.transactions, "transaction")) of the change log")
        }
    }
}
