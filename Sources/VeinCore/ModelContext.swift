import Synchronization
import Vein

/// The typed unit of work over a store (docs/app-guide.md), over the engine's `ObjectContext`: @Model instances are
/// inserted, changed and deleted in memory, and `save` writes them all in one transaction, or nothing.
/// One instance per row while the app holds it.
///
/// Built so far: insert, delete, save, rollback, hasChanges, fetch and fetchCount of a whole model or
/// with a condition in Vein's expression language (docs/expressions.md), and fetch, fetchCount and fetchIdentifiers
/// with a typed `FetchDescriptor<T>` (Fetch/ModelContext+TypedFetch.swift), and the per-model
/// conveniences (Conveniences/): `Post.fetch(where:sort:in:)`, `Post.fetchOne`, `Post.upsert`,
/// `post.delete()`, `post.attachments(where:sort:)` in SQL, `fetchAll(#Predicate)` and `ModelPredicate`.
public final class ModelContext: @unchecked Sendable {
    /// The engine's context under this one. Not public: an app has all it needs here (`transaction`,
    /// `explain` and `interrupt` included), and the engine's dynamic API is `import Vein`'s.
    package let engine: ObjectContext

    /// Why this context cannot serve the app's models (a container's context over a store not migrated
    /// to the app's schema yet); thrown by every operation that reads or writes the store.
    let schemaProblem: ModelContainerError?
    /// Why `save` may not write: a container whose configuration does not allow saves
    /// (`ModelConfiguration(allowsSave: false)`); nil when it may.
    let refusedSaves: ModelContainerError?
    /// The app's model classes by model name, for `model(for:)`, which makes an instance of a row it
    /// knows only by its `PersistentIdentifier` (empty for a context made over an engine context alone).
    let modelTypes: [String: any PersistentModel.Type]
    /// `autosaveEnabled`'s value (ModelContext+SwiftData.swift).
    let autosave = Atomic<Bool>(false)

    public init(_ engine: ObjectContext) {
        self.engine = engine
        self.schemaProblem = nil
        self.refusedSaves = nil
        self.modelTypes = [:]
    }

    /// A context for `models`, declared at `appSchema` (a container's): over a store at another schema,
    /// each operation throws `ModelContainerError.notMigrated` instead of running SQL the store's
    /// tables do not fit.
    init(_ engine: ObjectContext, appSchema: SchemaManifest, models: [any PersistentModel.Type],
         refusedSaves: ModelContainerError? = nil) {
        self.engine = engine
        self.refusedSaves = refusedSaves
        self.schemaProblem = engine.manifest.sha256 == appSchema.sha256 ? nil
            : .notMigrated(store: engine.manifest.version, app: appSchema.version)
        self.modelTypes = Dictionary(models.map { ($0.modelName, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Throws `schemaProblem`, if any. Cheap: decided once, when the context is made.
    func checkSchema() throws {
        if let schemaProblem { throw schemaProblem }
    }

    /// Throws `refusedSaves`, if any, before a save writes anything: the context stays as it was.
    func checkSavesAllowed() throws {
        if let refusedSaves { throw refusedSaves }
    }

    /// Inserts `model` and the models it points to that are in no context yet.
    ///
    /// As in SwiftData, an insert of an instance whose `@Unique` value (or `#Unique` combination of
    /// values) a stored row holds updates that row (an upsert, see `PersistentModel.upsert`): the
    /// instance becomes a view of the row, which takes its fields and the relationships it assigned. The row is looked for when the instance is inserted,
    /// in the store as this context has it (so a fetch before the save shows one row), and again by `save`
    /// inside its write transaction, for a value another context or process saved meanwhile or one given
    /// after the insert (the engine's `ModelObject.upsertsOnSave`). Two unsaved inserts of one value meet
    /// no stored row: the store's UNIQUE index refuses the second at `save`.
    ///
    /// It does not throw, as SwiftData's does not, so that `context.insert(x)` compiles as SwiftData code
    /// writes it. An insert that fails (a value the model refuses, a target in another context, a store
    /// not migrated to the app's schema) is not made, nothing of it stays pending, and the next `save`
    /// throws its error and writes nothing (`rollback` forgets it); `hasChanges` is true meanwhile.
    public func insert<T: PersistentModel>(_ model: T) {
        deferringFailure { try insertNow(model) }
    }

    private func insertNow<T: PersistentModel>(_ model: T) throws {
        try checkSchema()
        let uniqueKeys = T._$schema.uniqueKeys
        guard !uniqueKeys.isEmpty, model._$backing.object == nil else { return try Insertion.insert(model, into: engine) }
        try engine.lock.withLock { try ModelBacking.instanceLock.withLock {
            guard let merged = try T.merge(model, into: engine, uniqueKeys: uniqueKeys, includingPending: false) else {
                try T.requireNoUnsavedDeleteHolds(model, in: engine, uniqueKeys: uniqueKeys)
                return try Insertion.insert(model, into: engine)
            }
            // The inserted instance is the row's from now on (one the app held before stays a view of it).
            model._$backing.attach(merged.object)
            merged.object.typedModel = model
        } }
    }

    /// Deletes `model` with its relationships' delete rules; `save` writes it. Like `insert`, it does not
    /// throw: a delete refused (a `deny` rule this context can see) is not made, and the next `save`
    /// throws its error and writes nothing.
    public func delete(_ model: some PersistentModel) {
        deferringFailure { try deleteNow(model) }
    }

    /// `delete`, throwing its failure (for `delete(model:where:)`, which throws as SwiftData's does).
    func deleteNow(_ model: some PersistentModel) throws {
        try checkSchema()
        guard let object = model._$backing.object else { return }
        try engine.delete(object)
    }

    /// Runs `operation`, which makes nothing when it throws; its error waits for the next `save`.
    private func deferringFailure(_ operation: () throws -> Void) {
        do { try operation() } catch { engine.noteDeferredFailure(error) }
    }

    /// Writes the pending changes in one transaction. A context of a container whose configuration does
    /// not allow saves throws `ModelContainerError.savesNotAllowed`, whether or not it has changes.
    public func save() throws {
        try checkSchema()
        try checkSavesAllowed()
        try engine.save()
    }
    public func rollback() { engine.rollback() }
    /// Whether `save` has something to do: pending changes to write, or a failed `insert` or `delete`
    /// (or a write refused on a deleted object) to throw.
    public var hasChanges: Bool { engine.hasChanges || engine.hasDeferredFailures }

    /// The objects of model `T` in id (creation) order, or those `condition` (docs/expressions.md) holds for.
    public func fetch<T: PersistentModel>(_ type: T.Type, where condition: String? = nil) throws -> [T] {
        T.instances(try engine.fetch(descriptor(type, condition)))
    }

    public func fetchCount<T: PersistentModel>(_ type: T.Type, where condition: String? = nil) throws -> Int {
        try engine.fetchCount(descriptor(type, condition))
    }

    private func descriptor<T: PersistentModel>(_ type: T.Type, _ condition: String?) throws -> ObjectFetch {
        try checkSchema()
        var descriptor = ObjectFetch(model: T.modelName)
        if let condition {
            guard let model = engine.manifest.model(named: T.modelName) else { throw ContextError.unknownModel(T.modelName) }
            descriptor.predicate = try TypeChecker.checkPredicate(condition, model: model, manifest: engine.manifest)
        }
        return descriptor
    }
}
