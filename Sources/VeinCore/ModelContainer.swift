import Foundation
import Vein

/// A store opened for an app's schema (docs/app-guide.md): creates the store at the first run, opens it after, and
/// migrates it along the app's `SchemaMigrationPlan` when it is at an older version.
///
/// `ModelContainer(V0_0_2.self, migration: Plan.self, at: path, appID:)` opens a store at any version of
/// the plan; `migrate()` brings it to `V0_0_2`. Call `migrate()` before using `context` (a store not yet
/// migrated holds another schema than the app's models: the contexts' first operation throws
/// `ModelContainerError.notMigrated` until then); a store `migrate()` could not bring to the app's schema is
/// refused when the container opens. `at: nil` is an in-memory store: a plaintext
/// store in a private temporary folder (mode 0700), removed when the container goes away.
///
/// `close()` closes the store and every context the container made, merging the write-ahead log into
/// the file and removing the `-wal`; a container still open when the process exits normally (returning
/// from `main`, or `exit()`) is closed then (`OpenContainers`). Contexts hold no reference to their
/// container, so a container the app drops goes away with its main context; contexts it made stay
/// usable while the app (or one of their objects) holds them.
public final class ModelContainer: @unchecked Sendable {  // mutable state behind `lock`
    private let lock = NSLock()
    private var _store: Store
    private var _context: ModelContext
    let manifest: SchemaManifest
    /// The schema's model classes, for the contexts' `model(for:)`.
    let models: [any PersistentModel.Type]
    let plan: (any SchemaMigrationPlan.Type)?
    private let keys: KeyOptions
    /// The key options that opened the store, for connections of its own (`sync`).
    var keyOptions: KeyOptions { keys }
    /// The folder of an in-memory store, removed with the container.
    private let temporaryFolder: String?
    /// Every engine context the container made, held weakly, for `close()`.
    private var madeContexts: [WeakReference<ObjectContext>] = []
    private var isClosed = false
    /// `ModelConfiguration.allowsSave`: false opens the store read-only, and every context refuses to save.
    let allowsSave: Bool
    /// What a context of this container throws at `save` (nil when it may save).
    var refusedSaves: ModelContainerError? { allowsSave ? nil : .savesNotAllowed }

    public var store: Store { lock.withLock { _store } }
    /// The main context.
    public var context: ModelContext { lock.withLock { _context } }
    /// Whether the store is at an older version of the plan than the app's schema (see `migrate()`).
    public var needsMigration: Bool { lock.withLock { _store.manifest.sha256 != manifest.sha256 } }

    /// A container for schema `V`, the last version of `migration`. `path` nil: in memory.
    public convenience init<V: VersionedSchema, P: SchemaMigrationPlan>(
        _ schema: V.Type, migration: P.Type, at path: String?, appID: String,
        keyProvider: any DatabaseKeyProvider = SecretServiceKeyProvider()
    ) throws {
        try self.init(schema, plan: P.self, at: path, appID: appID, keyProvider: keyProvider)
    }

    /// A container for schema `V`, the last version of `plan` when there is one.
    convenience init<V: VersionedSchema>(_ schema: V.Type, plan: (any SchemaMigrationPlan.Type)?, at path: String?, appID: String,
                                         keyProvider: any DatabaseKeyProvider, allowsSave: Bool = true, keepsHistory: Bool = false) throws {
        if let plan {
            guard let last = plan.schemas.last, ObjectIdentifier(last) == ObjectIdentifier(V.self) else {
                throw ModelContainerError.schemaNotLastInPlan(schema: "\(V.self)", plan: "\(plan)")
            }
        }
        try self.init(manifest: try V.manifest(appID: appID), models: V.models, plan: plan, at: path, keys: keyProvider.keyOptions,
                      allowsSave: allowsSave, keepsHistory: keepsHistory)
    }

    /// A container for schema `V` without a plan: a store at another schema is refused.
    public convenience init<V: VersionedSchema>(for schema: V.Type, at path: String?, appID: String,
                                                keyProvider: any DatabaseKeyProvider = SecretServiceKeyProvider()) throws {
        try self.init(manifest: try V.manifest(appID: appID), models: V.models, plan: nil, at: path, keys: keyProvider.keyOptions)
    }

    init(manifest: SchemaManifest, models: [any PersistentModel.Type], plan: (any SchemaMigrationPlan.Type)?,
                 at path: String?, keys: KeyOptions, allowsSave: Bool = true, keepsHistory: Bool = false) throws {
        self.manifest = manifest
        self.allowsSave = allowsSave
        self.models = models
        self.plan = plan
        self.keys = keys
        let storePath: String
        if let path {
            temporaryFolder = nil
            storePath = path
            if !FileManager.default.fileExists(atPath: path) {
                guard allowsSave else { throw ModelContainerError.notCreatedWithoutSaves(path: path) }
                _ = try StoreCreator.create(at: path, manifest: manifest, protection: .encrypted(keys), keepsChangeLog: keepsHistory)
            }
        } else {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vein-memory-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            temporaryFolder = folder
            storePath = folder + "/store.vein"
            do {
                _ = try StoreCreator.create(at: storePath, manifest: manifest, protection: .plaintext, mode: 0o600,
                                            keepsChangeLog: keepsHistory)
            } catch {
                try? FileManager.default.removeItem(atPath: folder)
                throw error
            }
        }
        let store = try Store.open(storePath, keys: keys, mode: allowsSave ? .readWrite : .readOnly)
        if !allowsSave, store.manifest.app == manifest.app, store.manifest.version < manifest.version {
            throw ModelContainerError.notMigratedWithoutSaves(path: store.path, store: store.manifest.version, app: manifest.version)
        }
        try Self.checkMigratable(store, to: manifest, plan: plan)
        _store = store
        _context = ModelContext(ObjectContext(store: store, models: models), appSchema: manifest, models: models,
                                refusedSaves: allowsSave ? nil : .savesNotAllowed)
        madeContexts.append(WeakReference(_context.engine))
        OpenContainers.shared.add(self)
    }

    deinit {
        OpenContainers.shared.remove(self)
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }

    /// A context of its own (its own connection), for another thread. After `close()`, a closed one:
    /// its operations throw `StoreError.closed`.
    public func newContext() -> ModelContext {
        lock.withLock { madeContext(over: _store) }
    }

    /// The engine context of a new context (`ModelContext(container)` wraps it).
    func newEngineContext() -> ObjectContext { newContext().engine }

    /// A new context over `store`, remembered for `close()`. Called with the lock held.
    private func madeContext(over store: Store) -> ModelContext {
        let engine = ObjectContext(store: store, models: models)
        if isClosed { try? engine.close() } else {
            madeContexts.removeAll { $0.object == nil }
            madeContexts.append(WeakReference(engine))
        }
        return ModelContext(engine, appSchema: manifest, models: models, refusedSaves: refusedSaves)
    }

    /// Closes every context the container made and then the store: the write-ahead log is merged into
    /// the store's file and the `-wal` removed (when no other process has the store open). Unsaved changes
    /// are not saved. Afterwards instances still read the values they hold, their relationships and lazy
    /// fields not read before are nil or empty (`AbsentFieldValue`), and whatever needs the store (fetch,
    /// save, `migrate()`, `value(of:)` of a lazy field not read yet) throws `StoreError.closed`. Closing
    /// twice does nothing.
    public func close() throws {
        try lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            defer { OpenContainers.shared.remove(self) }
            for made in madeContexts { try made.object?.close() }
            madeContexts = []
            try _store.close()
        }
    }

    /// Brings the store to the app's schema along the plan, in one transaction with the engine's migrator:
    /// all pending stages or none, data a stage would lose fails it (`MigrationError.unhandledData`), and
    /// `_vein_migrations` records each stage. The plan is checked (as `vein migrate check` does) and applied stages
    /// compared with their history also when the store is at the app's version. Afterwards
    /// `store` and `context` are new, at the app's schema; contexts taken before are not.
    @discardableResult
    public func migrate() throws -> MigrationReport {
        try lock.withLock {
            guard !isClosed else { throw StoreError.closed(_store.path) }
            // Read-only: a store it could not open without migrating was refused when the container was made.
            guard allowsSave else { return MigrationReport(upToDate: _store.manifest.version.description) }
            // With a plan, the migrator runs also when nothing is pending: a plan the CLI would refuse, or a
            // stage edited after it ran on this store (`_vein_migrations`'s checksum), is found at every start.
            guard let plan else {
                guard _store.manifest.sha256 == manifest.sha256 else {
                    throw ModelContainerError.schemaMismatch(path: _store.path, store: _store.manifest.version, app: manifest.version, hasPlan: false)
                }
                return MigrationReport(upToDate: _store.manifest.version.description)
            }
            var migrator = Migrator(plan: try plan.enginePlan(appID: manifest.app))
            let stages = plan.stages
            migrator.willRunStage = { stage, database in
                let typed = stages.first { $0.from.version == stage.from.version }
                try Self.runHook(typed?.willMigrate, database, stage.from, models: typed?.from.models ?? [])
            }
            migrator.didRunStage = { stage, database in
                let typed = stages.first { $0.from.version == stage.from.version }
                try Self.runHook(typed?.didMigrate, database, stage.to, models: typed?.to.models ?? [])
            }
            let report: MigrationReport
            do {
                report = try migrator.run(on: _store)
            } catch let error as MigrationError {
                throw Self.explained(error, stages: stages)
            }
            // Another container (or process) may have migrated the store since this one opened it: the
            // context is replaced whenever it is not at the app's schema, whether this run had stages or not.
            guard !report.stages.isEmpty || _store.manifest.sha256 != manifest.sha256 else { return report }
            let migrated = try Store.open(_store.path, keys: keys)
            _store = migrated
            _context = madeContext(over: migrated)
            return report
        }
    }
}

extension ModelContainer {
    /// A stage whose new required fields get no value, and that has a `didMigrate`: the person likely meant
    /// it to fill them, but it runs once the stage has made the new tables, too late. The remedy says so.
    static func explained(_ error: MigrationError, stages: [MigrationStage]) -> MigrationError {
        guard case .unhandledData(let name, let findings) = error,
              stages.contains(where: { "\($0.from.version) → \($0.to.version)" == name && $0.didMigrate != nil }) else { return error }
        return .unhandledData(stage: name, findings.map { finding in
            guard finding.kind == .missingValue || finding.kind == .nilInRequiredField else { return finding }
            return finding.withRemedyNote("didMigrate runs after the stage has made the new schema's tables, too late to fill a required field")
        })
    }

    /// Refuses, when the container opens, a store that `migrate()` could not bring to `manifest`: another
    /// app's, one at a version the plan does not list, or one whose schema is not the plan's schema of its
    /// version (a schema changed without a new version). Only a store `migrate()` brings to the app's
    /// schema is opened with contexts that say "call container.migrate() first".
    private static func checkMigratable(_ store: Store, to manifest: SchemaManifest, plan: (any SchemaMigrationPlan.Type)?) throws {
        let found = store.manifest
        guard found.sha256 != manifest.sha256 else { return }
        guard found.app == manifest.app else {
            throw ModelContainerError.appMismatch(path: store.path, store: found.app, app: manifest.app)
        }
        guard let plan, let schema = plan.schemas.first(where: { $0.version == found.version }) else {
            throw ModelContainerError.schemaMismatch(path: store.path, store: found.version, app: manifest.version, hasPlan: plan != nil)
        }
        guard try schema.manifest(appID: manifest.app).sha256 == found.sha256 else {
            if found.version == manifest.version {
                throw ModelContainerError.schemaMismatch(path: store.path, store: found.version, app: manifest.version, hasPlan: true)
            }
            throw ModelContainerError.schemaDiffersFromPlan(path: store.path, version: found.version)
        }
    }

    /// A stage's `willMigrate`/`didMigrate` on the migration's connection, with a context at `schema`, whose
    /// model classes are `models`.
    private static func runHook(_ hook: (@Sendable (ModelContext) throws -> Void)?, _ database: Database,
                                _ schema: SchemaManifest, models: [any PersistentModel.Type]) throws {
        guard let hook else { return }
        let context = ModelContext(try ObjectContext(database: database, manifest: schema, models: models))
        try hook(context)
        if context.hasChanges { try context.save() }
    }
}

public enum ModelContainerError: Error, Equatable, CustomStringConvertible {
    /// The store holds another schema than the app declares, and no plan (or not this plan) leads from it.
    case schemaMismatch(path: String, store: SchemaVersion, app: SchemaVersion, hasPlan: Bool)
    /// The container's schema is not the plan's newest: the app would run at a version the plan goes past.
    case schemaNotLastInPlan(schema: String, plan: String)
    /// A context of a store not migrated to the app's schema yet was used (a context taken before
    /// `migrate()` stays at the store's old schema).
    case notMigrated(store: SchemaVersion, app: SchemaVersion)
    /// The store belongs to another app (its manifest's `app` is not the container's `appID`).
    case appMismatch(path: String, store: String, app: String)
    /// The store is at a version of the plan, but its schema is not the plan's schema of that version.
    case schemaDiffersFromPlan(path: String, version: SchemaVersion)
    /// A `ModelConfiguration` names models the container was not made for.
    case configurationModelsNotInContainer([String])
    /// The `VersionedSchema` declares neither `version` nor `versionIdentifier`.
    case noVersion(schema: String)
    /// A context of a container whose configuration says `allowsSave: false` was asked to save.
    case savesNotAllowed
    /// `allowsSave: false`, and there is no store at the path: such a container creates none.
    case notCreatedWithoutSaves(path: String)
    /// `allowsSave: false`, and the store is at an older schema than the app's: such a container does not migrate it.
    case notMigratedWithoutSaves(path: String, store: SchemaVersion, app: SchemaVersion)

    public var description: String {
        switch self {
        case .schemaMismatch(let path, let store, let app, let hasPlan):
            if store == app { return "\(path) holds a different schema \(store) than the app declares for the same version" }
            if store > app {
                return "\(path) is at schema \(store), newer than the app's \(app): a newer version of the app migrated it; "
                    + "open it with that version (Vein does not migrate a store back)"
            }
            return "\(path) is at schema \(store), the app declares \(app): "
                + (hasPlan ? "the migration plan does not list \(store)" : "open it with a migration plan (migration:) and call migrate()")
        case .schemaNotLastInPlan(let schema, let plan):
            return "\(schema) is not the last schema of \(plan): a container opens the plan's newest version"
        case .appMismatch(let path, let store, let app):
            return "\(path) belongs to app \"\(store)\", not to \"\(app)\" (the container's appID)"
        case .schemaDiffersFromPlan(let path, let version):
            return "\(path) holds a different schema \(version) than the migration plan declares for that version"
        case .configurationModelsNotInContainer(let names):
            return "the configuration names \(names.joined(separator: ", ")), which the container's schema does not list: "
                + "add \(names.count == 1 ? "it" : "them") to ModelContainer(for: …)"
        case .noVersion(let schema):
            return "\(schema) declares no version: add `static let version = ModelVersion(1, 0, 0)` "
                + "(or SwiftData's `static let versionIdentifier = Schema.Version(1, 0, 0)`)"
        case .savesNotAllowed:
            return "the container's configuration does not allow saves (ModelConfiguration(allowsSave: false)): "
                + "its contexts read the store and never write it; make the container with allowsSave: true to save"
        case .notCreatedWithoutSaves(let path):
            return "\(path) does not exist, and a configuration that does not allow saves (allowsSave: false) does not create it: "
                + "create it with allowsSave: true first, or check the path"
        case .notMigratedWithoutSaves(let path, let store, let app):
            return "\(path) is at schema \(store), the app declares \(app), and a configuration that does not allow saves "
                + "(allowsSave: false) does not migrate it: migrate it with allowsSave: true first"
        case .notMigrated(let store, let app):
            return "the store is at schema \(store) and the app's schema is \(app): call container.migrate() first, "
                + "then use container.context (a context taken before migrate() stays at \(store))"
        }
    }
}
