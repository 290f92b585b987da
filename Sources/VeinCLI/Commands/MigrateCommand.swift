import Foundation
import Vein

enum MigrateCommand {
    static let plan: OptionKey<String> = .required("plan", value: "PLAN", help: "The migration plan (JSON5): schema versions and the stages between them.",
                                                   completion: .fileWithExtensions(["json5", "json"]))
    static let target: OptionKey<String?> = .value("to", value: "VERSION", help: "Stop at this schema version (default: the plan's last).")
    static let dryRun: OptionKey<Bool> = .flag("dry-run", help: "Run on a scratch copy and report; change nothing.")
    static let acceptChangedPlan: OptionKey<Bool> = .flag("accept-changed-plan",
                                                          help: "Run even though an applied stage was edited since, recording its new checksum.")
    static let wait: OptionKey<String?> = .value("wait", value: "SECONDS",
                                                 help: "Wait up to SECONDS for another writer to finish (default 0: exit 75 at once).")

    static let spec: CommandSpec = CommandSpec(
        name: "migrate",
        abstract: "Migrate a store through the pending stages of a plan",
        discussion: """
            Runs every pending stage of PLAN on STORE, or those up to --to VERSION. All stages run in one \
            transaction: after a failure or a crash the store is at its old version with every row intact, or \
            (once committed) at the new one. Each changed table is rebuilt by copying; unchanged ones stay.

            Data the plan does not account for fails the run and changes nothing: a value in a removed field \
            without a drop step, rows of a removed model without dropModel, a required new field with no value, \
            an enum value outside the new set, a unique violation, a relationship to a removed row. The report \
            names model, field, row count and up to 5 sample ids.

            A second migrator (or any writer) holding the store makes migrate exit 75 at once; --wait SECONDS \
            waits that long for it first. A stage applied earlier and edited in the plan since is refused unless \
            --accept-changed-plan (its checksum in _vein_migrations is then updated).

            --dry-run runs the whole plan on a scratch copy of the store, encrypted with a throwaway key and \
            deleted after, and reports what the real run would read, write, delete and drop, with the exit \
            status the real run would have. The store is only read.

            On a terminal a progress bar on standard error follows the stages' phases; --quiet silences it \
            and the report.

            On a synced store (vein sync init or join) a migration is a sync barrier. While no replica has \
            migrated, migrate first syncs (pull, then push), migrates, and publishes the migrated store on the \
            relay for the others. When another replica migrated first, this one starts from what that replica \
            published, and its own changes that the others have not received are written again at the new \
            version and sent by the next sync. Until a replica is migrated, vein sync refuses it (exit 78) and \
            its changes stay in it. Rows set aside for a unique value (vein sync conflicts) must be resolved \
            first.

            'vein migrate status' shows applied and pending stages; 'vein migrate check' tries a plan in CI \
            without a store.
            """,
        arguments: [SharedOptions.store],
        options: [plan, target, dryRun, acceptChangedPlan, wait, SharedOptions.json, SharedOptions.quiet] + SharedOptions.keyOptions,
        subcommands: [MigrateStatusCommand.spec, MigrateCheckCommand.spec],
        examples: [
            ("vein migrate blog.vein --plan plan.json5 --dry-run", "What the migration would do, without doing it."),
            ("vein migrate blog.vein --plan plan.json5", "Migrate to the plan's last version."),
            ("vein migrate blog.vein --plan plan.json5 --to 0.0.2 --json", "Migrate one step, with a JSON report."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let plan = try PlanParser.load(path: invocation[Self.plan])
        var target: SchemaVersion?
        if let to = invocation[Self.target] {
            guard let version = SchemaVersion(to) else {
                throw UsageError(message: "--to expects a version such as 1.2.0, found '\(to)'", command: invocation.commandPath)
            }
            target = version
        }
        var waitSeconds = 0.0
        if let wait = invocation[Self.wait] {
            guard let seconds = Double(wait), seconds >= 0, seconds <= 86_400 else {
                throw UsageError(message: "--wait expects a number of seconds, found '\(wait)'", command: invocation.commandPath)
            }
            waitSeconds = seconds
        }
        let store = try SharedOptions.openStore(invocation)
        store.database.setBusyTimeout(milliseconds: Int32(waitSeconds * 1000))
        let synced = try SyncSession.isSynced(store) && !invocation[dryRun]
        if synced { try SyncSession(store: store).prepareMigration() }
        var migrator = Migrator(plan: plan)
        let bar = ProgressBar(invocation)
        if let bar { migrator.progress = { bar.update($0) } }
        let accept = invocation[acceptChangedPlan]
        let report: MigrationReport
        do {
            defer { bar?.finish() }
            report = invocation[dryRun]
                ? try migrator.dryRun(store, to: target, acceptChangedPlan: accept)
                : try migrator.run(on: store, to: target, acceptChangedPlan: accept)
        }
        var outcome: SyncSession.MigrationOutcome?
        if synced {
            // The session works at the new version: the store opened again reads its new schema.
            try store.close()
            let migrated = try SharedOptions.openStore(invocation)
            migrated.database.setBusyTimeout(milliseconds: Int32(waitSeconds * 1000))
            outcome = try SyncSession(store: migrated).finishMigration(plan: plan)
        }
        MigrationOutput.print(report, store: store.path, sync: outcome, invocation: invocation)
    }
}

enum MigrateStatusCommand {
    static let exitCode: OptionKey<Bool> = .flag("exit-code", help: "Exit 1 while stages are pending.")

    static let spec: CommandSpec = CommandSpec(
        name: "status",
        abstract: "Show a store's version and the plan's applied and pending stages",
        discussion: """
            Reads STORE and PLAN and changes nothing. With --exit-code, exits 1 while stages are pending (a CI \
            gate: 'vein migrate status STORE --plan PLAN --exit-code || vein migrate STORE --plan PLAN').
            """,
        arguments: [SharedOptions.store],
        options: [MigrateCommand.plan, exitCode, SharedOptions.json] + SharedOptions.keyOptions,
        examples: [("vein migrate status blog.vein --plan plan.json5", "Where the store stands against the plan.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let plan = try PlanParser.load(path: invocation[MigrateCommand.plan])
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        let status = try Migrator(plan: plan).status(of: store)
        let console = invocation.console
        if invocation.wantsJSON {
            console.outJSON(.object(JSONObject([
                ("store", .string(store.path)), ("version", .string(status.storeVersion)),
                ("applied", .array(status.applied.map(JSONValue.string))), ("pending", .array(status.pending.map(JSONValue.string))),
                ("changed", .array(status.changed.map(JSONValue.string))),
            ])))
        } else {
            console.out("\(store.path) is at \(status.storeVersion)")
            for stage in status.applied { console.out("  applied  \(stage)\(status.changed.contains(stage) ? "  (edited in the plan since)" : "")") }
            for stage in status.pending { console.out("  pending  \(stage)") }
            if status.pending.isEmpty { console.out("up to date with \(plan.file)") }
        }
        if invocation[exitCode] && !status.pending.isEmpty {
            throw CommandFailure.silent(exitCode: .failure)
        }
    }
}

enum MigrateCheckCommand {
    static let plan: ArgumentKey<String> = .required("PLAN", help: "The migration plan.", completion: .fileWithExtensions(["json5", "json"]))
    static let fixture: OptionKey<String?> = .value("fixture", value: "FILE", help: "Try the plan on these exported rows instead of synthetic ones.",
                                                    completion: .fileWithExtensions(["json", "jsonl"]))

    static let spec: CommandSpec = CommandSpec(
        name: "check",
        abstract: "Check a plan without a store: structure, types, and a trial run on synthetic rows",
        discussion: """
            For CI. Validates PLAN (versions in order, one stage per adjacent pair, every step names real \
            models and fields, every expression type-checks against its version), then creates \
            \(PlanChecker.rowsPerModel) synthetic rows per model at the first version (optionals sometimes nil, \
            every enum value, relationships linked), migrates them through every stage in memory, and fails \
            on unhandled data. With --fixture FILE the rows are those of FILE instead: a 'vein export' (json or \
            jsonl) of a store at the plan's first version. Exits 0 when the plan passes and 65 when it does not.
            """,
        arguments: [plan],
        options: [fixture, ExportCommand.format, SharedOptions.json, SharedOptions.quiet],
        examples: [("vein migrate check plan.json5", "Fail the build if the plan would lose data.")],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let plan = try PlanParser.load(path: invocation[Self.plan])
        var fixture: PlanChecker.Fixture?
        var descriptor: Int32 = -1
        defer { if descriptor > STDIN_FILENO { close(descriptor) } }
        if let path = invocation[Self.fixture] {
            descriptor = try FileInput.openForStreaming(path)
            fixture = PlanChecker.Fixture(descriptor: descriptor, format: InterchangeOptions.format(invocation, path: path), name: path)
        }
        let report = try PlanChecker.check(plan, fixture: fixture)
        let rows = fixture == nil ? "the synthetic rows" : "the rows of \(fixture!.name)"
        MigrationOutput.print(report, store: "synthetic rows", invocation: invocation)
        if !invocation.wantsJSON { invocation.console.note("\(plan.file) passes: every stage carries \(rows) to \(report.toVersion)") }
    }
}

/// The report of a run, a dry run or a check, as text or JSON.
enum MigrationOutput {
    /// `sync`: what the migration of a synced store did on its relay.
    static func print(_ report: MigrationReport, store: String, sync: SyncSession.MigrationOutcome? = nil, invocation: Invocation) {
        let console = invocation.console
        if invocation.wantsJSON {
            var fields: [(String, JSONValue)] = [
                ("store", .string(store)), ("from", .string(report.fromVersion)), ("to", .string(report.toVersion)),
                ("dryRun", .bool(report.dryRun)), ("durationSeconds", .double(report.durationSeconds)),
                ("stages", .array(report.stages.map(json))),
            ]
            if let matches = report.matchesTarget { fields.append(("matchesTarget", .bool(matches))) }
            if let sync { fields.append(("sync", json(sync))) }
            console.outJSON(.object(JSONObject(fields)))
            return
        }
        guard !invocation.quiet else { return }
        if report.stages.isEmpty {
            console.out("\(store) is already at \(report.toVersion); nothing to do")
        }
        for stage in report.stages {
            console.out("\(stage.from) → \(stage.to): \(Phrase.rows(stage.rowsRead)) read, \(stage.rowsWritten) written, "
                        + "\(stage.rowsDeleted) deleted, \(stage.rowsDropped) dropped (\(String(format: "%.2f", stage.durationSeconds)) s)")
            for step in stage.steps { console.out("  \(step.step): \(Phrase.rows(step.rows)) \(step.effect)") }
            for warning in stage.warnings { console.out("  warning: \(warning)") }
        }
        if report.dryRun {
            if let matches = report.matchesTarget {
                console.out(matches ? "the result matches the \(report.toVersion) schema" : "the result does NOT match the \(report.toVersion) schema")
            }
            console.note("dry run: \(store) was not changed")
        } else if !report.stages.isEmpty && store != "synthetic rows" {
            console.note("\(store) is now at \(report.toVersion)")
        }
        switch sync {
        case .published(let migration)?:
            console.out("sync: published migration \(migration) on the relay; the other replicas migrate with this plan before they sync again")
        case .rebased(let migration, let carried)?:
            console.out("sync: started from migration \(migration), which another replica published; this replica's own changes the others "
                        + "had not received are written again at \(report.toVersion) (\(Phrase.count(carried, "row")) and links), and the next sync sends them")
        case .current?, nil: break
        }
    }

    private static func json(_ sync: SyncSession.MigrationOutcome) -> JSONValue {
        switch sync {
        case .current: return .object(JSONObject([("outcome", .string("current"))]))
        case .published(let migration): return .object(JSONObject([("outcome", .string("published")), ("migration", .int(Int64(migration)))]))
        case .rebased(let migration, let carried):
            return .object(JSONObject([("outcome", .string("rebased")), ("migration", .int(Int64(migration))), ("carried", .int(Int64(carried)))]))
        }
    }

    private static func json(_ stage: StageReport) -> JSONValue {
        .object(JSONObject([
            ("from", .string(stage.from)), ("to", .string(stage.to)),
            ("rowsRead", .int(Int64(stage.rowsRead))), ("rowsWritten", .int(Int64(stage.rowsWritten))),
            ("rowsDeleted", .int(Int64(stage.rowsDeleted))), ("rowsDropped", .int(Int64(stage.rowsDropped))),
            ("durationSeconds", .double(stage.durationSeconds)),
            ("steps", .array(stage.steps.map { .object(JSONObject([("step", .string($0.step)), ("rows", .int(Int64($0.rows))), ("effect", .string($0.effect))])) })),
            ("warnings", .array(stage.warnings.map(JSONValue.string))),
        ]))
    }
}
