/// The two shapes of the JSON interchange of docs/interchange.md.
public enum InterchangeFormat: String, CaseIterable, Sendable {
    /// One document: `{"vein":1,"app":…,"schemaVersion":…,"models":{"Post":[…],…}}`.
    case json
    /// A header line `{"vein":1,"app":…,"schemaVersion":…}`, then one `{"model":"Post",…}` per line.
    case jsonl
}

/// Why an import was refused. Nothing was written.
public struct ImportError: Error, Equatable, Sendable, CustomStringConvertible {
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        /// `line 1843` (jsonl) or `models.Post[12]` (json), with the field when there is one.
        public let location: String
        public let message: String
        public var description: String { "\(location): \(message)" }
    }

    public let file: String
    public let problems: [Problem]
    /// What to do about it, when something general helps; the CLI words it (the engine names no command
    /// or option).
    public let remedy: Remedy?
    /// Reading stopped at `StoreImporter.problemLimit` records with problems: there may be more.
    public let stoppedEarly: Bool

    public init(file: String, problems: [Problem], remedy: Remedy?, stoppedEarly: Bool = false) {
        self.file = file
        self.problems = problems
        self.remedy = remedy
        self.stoppedEarly = stoppedEarly
    }

    public enum Remedy: Equatable, Sendable {
        /// The file and the store are at different schema versions: migrate one of them first.
        case migrateFirst
        /// Records have ids the store holds: an import that replaces records by id would take them.
        case upsert
    }

    public var description: String { problems.map { "\(file): \($0)" }.joined(separator: "\n") }

    /// The message as a person reads it: that nothing was written, then each problem on a line of its own.
    public var lines: [String] {
        var lines = ["import from \(file) refused; nothing was written"] + problems.map { "  \($0)" }
        if stoppedEarly { lines.append("  (stopped after \(StoreImporter.problemLimit) records with problems)") }
        return lines
    }
}

/// What an import or export moved.
public struct InterchangeSummary: Equatable, Sendable {
    /// Records per model.
    public var records: [String: Int] = [:]
    /// Of those, records that replaced a row with the same id (an upsert), per model.
    public var replaced: [String: Int] = [:]
    public init() {}
    public var total: Int { records.values.reduce(0, +) }
    public var totalReplaced: Int { replaced.values.reduce(0, +) }
    /// Records that added a row.
    public var totalInserted: Int { total - totalReplaced }
}
