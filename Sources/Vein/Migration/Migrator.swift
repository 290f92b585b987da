import Foundation

/// Runs a plan's pending stages on a store (docs/migrations.md).
///
/// Invariants (ARCHITECTURE.md I4, I8): every stage of one run happens in one transaction, taken with BEGIN IMMEDIATE before
/// the store's version is read, so two migrators never interleave and the second sees what the first
/// committed; `_vein_meta` and `_vein_migrations` change in that same transaction, so after a crash the store
/// is whole at the old version or the new one.
public struct Migrator: Sendable {
    public let plan: MigrationPlan
    /// Called as each stage moves from phase to phase.
    public var progress: ProgressHandler?
    /// Called inside the run's transaction just before a stage changes the tables (the database at the
    /// stage's `from` schema) and just after (at its `to` schema): the Swift API's `willMigrate` and
    /// `didMigrate`. What they write commits or rolls back with the run.
    package var willRunStage: (@Sendable (PlanStage, Database) throws -> Void)?
    package var didRunStage: (@Sendable (PlanStage, Database) throws -> Void)?

    public init(plan: MigrationPlan) {
        self.plan = plan
    }

    /// Where a store stands against the plan.
    public struct Status: Equatable, Sendable {
        public let storeVersion: String
        public let applied: [String]
        public let pending: [String]
        /// Applied stages whose checksum in `_vein_migrations` differs from the plan's.
        public let changed: [String]
    }

    public func status(of store: Store) throws -> Status {
        let database = store.database, path = store.path
        return try database.transaction(.deferred) {
            let (meta, index) = try position(database, path: path)
            let changed = try changedStages(database, applied: index).map(\.name)
            return Status(storeVersion: meta.schemaVersion, applied: plan.stages[..<index].map(\.name),
                          pending: plan.stages[index...].map(\.name), changed: changed)
        }
    }

    /// Migrates `store` to `target` (the plan's last version by default). Throws `MigrationError` for
    /// anything the plan or the data does not allow, with nothing changed. `store` keeps the schema it was
    /// opened with: open the store again to work with it at the new version.
    public func run(on store: Store, to target: SchemaVersion? = nil, acceptChangedPlan: Bool = false) throws -> MigrationReport {
        try run(on: store.database, path: store.path, to: target, acceptChangedPlan: acceptChangedPlan)
    }

    /// The run on a connection: the store's own, or a dry run's scratch copy of it.
    package func run(on database: Database, path: String, to target: SchemaVersion? = nil,
                     acceptChangedPlan: Bool = false) throws -> MigrationReport {
        let started = Date()
        let recorder = database.transactionObserver as? ChangeRecorder
        let report = try database.transaction(.immediate) {
            let (meta, index) = try position(database, path: path)
            let last: Int
            if let target {
                guard let t = plan.index(of: target) else {
                    throw MigrationError.targetNotInPlan(target.description, plan: plan.versions.map(\.description))
                }
                guard t >= index else { throw MigrationError.backwards(store: meta.schemaVersion, target: target.description) }
                last = t
            } else {
                last = plan.schemas.count - 1
            }
            let changed = try changedStages(database, applied: index)
            if !changed.isEmpty {
                guard acceptChangedPlan else { throw MigrationError.changedPlan(stages: changed.map(\.name)) }
                for stage in changed {
                    try database.execute("UPDATE \(StoreFormat.migrations) SET \"checksum\" = ? WHERE \"fromVersion\" = ? AND \"toVersion\" = ?",
                                         [.text(stage.checksum), .text(stage.from.version.description), .text(stage.to.version.description)])
                }
            }
            var report = MigrationReport(fromVersion: meta.schemaVersion, toVersion: plan.schemas[last].version.description, stages: [])
            let pending = plan.stages[index..<last]
            // The change log keeps a migration as one schema record per stage, not its rows (docs/history.md).
            func runStages() throws {
                let phases = StageRunner.Phase.allCases.count
                for (n, stage) in pending.enumerated() {
                    let stageStart = Date()
                    let stagePlan: StagePlan
                    switch StagePlanner.plan(stage) {
                    case .success(let p): stagePlan = p
                    case .failure(let issues):  // the parser refuses such plans; kept as a guard for hand-built ones
                        throw ManifestError(file: plan.file, issues: issues.messages.map { ManifestIssue(path: stage.path, message: $0) })
                    }
                    var runner = StageRunner(database: database, stage: stage, plan: stagePlan)
                    if let progress {
                        runner.phase = { phase in
                            progress(WorkProgress(done: n * phases + phase.rawValue, total: pending.count * phases,
                                                  label: "\(stage.name): \(phase.label)"))
                        }
                    }
                    try willRunStage?(stage, database)
                    var stageReport = try runner.run()
                    try didRunStage?(stage, database)
                    stageReport.durationSeconds = Date().timeIntervalSince(stageStart)
                    try database.execute("""
                        INSERT INTO \(StoreFormat.migrations) ("fromVersion", "toVersion", "checksum", "appliedAt", "durationSeconds",
                          "rowsRead", "rowsWritten", "rowsDeleted", "toolVersion") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, [.text(stage.from.version.description), .text(stage.to.version.description), .text(stage.checksum),
                              .text(ISODate.format(Date().timeIntervalSince1970)), .real(stageReport.durationSeconds),
                              .integer(Int64(stageReport.rowsRead)), .integer(Int64(stageReport.rowsWritten)),
                              .integer(Int64(stageReport.rowsDeleted)), .text(VeinVersion.current)])
                    report.stages.append(stageReport)
                    try ChangeLogSchema.appendSchemaRecord(in: database, stage: stage.name, checksum: stage.checksum,
                                                           manifest: plan.schemas[n + index + 1])
                }
            }
            if let recorder { try recorder.paused(runStages) } else { try runStages() }
            if last > index {
                var updated = meta
                let schema = plan.schemas[last]
                updated.schemaVersion = schema.version.description
                updated.manifest = schema.canonicalText
                updated.manifestSHA256 = schema.sha256
                try updated.write(to: database)
            }
            report.durationSeconds = Date().timeIntervalSince(started)
            return report
        }
        // The connection goes on recording the new schema's tables.
        if let recorder, report.toVersion != report.fromVersion {
            try recorder.adopt(plan.schemas.first { $0.version.description == report.toVersion }!, on: database)
        }
        return report
    }

    /// The whole run on an encrypted scratch copy of the store, thrown away after: the report of what the
    /// real run would do, and the same error when it would fail. The store itself is only read.
    public func dryRun(_ store: Store, to target: SchemaVersion? = nil, acceptChangedPlan: Bool = false) throws -> MigrationReport {
        let scratch = try ScratchCopy(of: store.database, guarding: WriteGuard(protecting: store))
        defer { scratch.remove() }
        var report = try run(on: scratch.database, path: store.path, to: target, acceptChangedPlan: acceptChangedPlan)
        let migrated = plan.schemas.first { $0.version.description == report.toVersion }!
        report.matchesTarget = try StoreVerifier.tablesMatch(scratch.database, manifest: migrated)
        report.dryRun = true
        return report
    }

    /// The store's meta and its version's index in the plan, after checking the two belong together.
    private func position(_ database: Database, path: String) throws -> (StoreMeta, Int) {
        let meta = try StoreMeta.read(from: database, path: path)
        guard meta.app == plan.app else { throw MigrationError.appMismatch(plan: plan.app, store: meta.app) }
        let versions = plan.versions.map(\.description)
        guard let version = SchemaVersion(meta.schemaVersion), let index = plan.index(of: version) else {
            let newer = SchemaVersion(meta.schemaVersion).map { $0 > plan.versions.last! } ?? false
            throw MigrationError.versionNotInPlan(store: meta.schemaVersion, plan: versions, newerThanPlan: newer)
        }
        guard plan.schemas[index].sha256 == meta.manifestSHA256 else {
            throw MigrationError.schemaDiffers(version: meta.schemaVersion)
        }
        return (meta, index)
    }

    /// Applied stages (the first `applied` of the plan) whose history checksum is not the plan's.
    private func changedStages(_ database: Database, applied: Int) throws -> [PlanStage] {
        var recorded: [String: String] = [:]
        for row in try database.rows("SELECT \"fromVersion\", \"toVersion\", \"checksum\" FROM \(StoreFormat.migrations) WHERE \"fromVersion\" IS NOT NULL") {
            if let from = row[0].string, let to = row[1].string, let sum = row[2].string { recorded["\(from) \(to)"] = sum }
        }
        return plan.stages[..<applied].filter { stage in
            recorded["\(stage.from.version) \(stage.to.version)"].map { $0 != stage.checksum } ?? false
        }
    }
}
