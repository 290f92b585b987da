/// What one stage did (or, in a dry run, would do): rows read, written, deleted and dropped, per step.
public struct StageReport: Equatable, Sendable {
    public let from: String
    public let to: String
    public var rowsRead = 0
    public var rowsWritten = 0
    public var rowsDeleted = 0
    /// Rows of models dropped with `dropModel`.
    public var rowsDropped = 0
    public var steps: [StepReport] = []
    public var warnings: [String] = []
    public var durationSeconds = 0.0

    public struct StepReport: Equatable, Sendable {
        public let step: String
        /// Rows the step affected: deleted, computed, or holding the values it dropped.
        public let rows: Int
        public let effect: String
    }
}

/// The result of a run: every stage, in order.
public struct MigrationReport: Equatable, Sendable {
    public let fromVersion: String
    public let toVersion: String
    public var stages: [StageReport]
    public var durationSeconds = 0.0
    /// Dry runs only: whether the migrated copy's tables and indexes are exactly the target schema's.
    public var matchesTarget: Bool?
    public var dryRun = false
}

extension MigrationReport {
    /// The report of a run with nothing to do: the store is at `version` already.
    package init(upToDate version: String) {
        self.init(fromVersion: version, toVersion: version, stages: [])
    }
}
