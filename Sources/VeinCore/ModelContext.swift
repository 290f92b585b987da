import Vein

/// The typed unit of work over a store (SPEC §10), over the engine's `ModelContext`: @Model instances are
/// inserted, changed and deleted in memory, and `save` writes them all in one transaction, or nothing.
/// One instance per row while the app holds it.
///
/// Built so far: insert, delete, save, rollback, hasChanges, fetch and fetchCount of a whole model or
/// with a condition in Vein's expression language (SPEC §4), and fetch, fetchCount and fetchIdentifiers
/// with a typed `FetchDescriptor<T>` (Fetch/ModelContext+TypedFetch.swift), and the per-model
/// conveniences (Conveniences/): `Post.fetch(where:sort:in:)`, `Post.fetchOne`, `Post.upsert`,
/// `post.delete()`, `post.attachments(where:sort:)` in SQL, `fetchAll(#Predicate)` and `ModelPredicate`.
public final class ModelContext: @unchecked Sendable {
    /// The engine's context, for what the typed surface does not offer yet.
    public let engine: Vein.ModelContext

    /// Why this context cannot serve the app's models (a container's context over a store not migrated
    /// to the app's schema yet); thrown by every operation that reads or writes the store.
    let schemaProblem: ModelContainerError?

    public init(_ engine: Vein.ModelContext) {
        self.engine = engine
        self.schemaProblem = nil
    }

    /// A context for models declared at `appSchema` (a container's): over a store at another schema,
    /// each operation throws `ModelContainerError.notMigrated` instead of running SQL the store's
    /// tables do not fit.
    init(_ engine: Vein.ModelContext, appSchema: SchemaManifest) {
        self.engine = engine
        self.schemaProblem = engine.manifest.sha256 == appSchema.sha256 ? nil
            : .notMigrated(store: engine.manifest.version, app: appSchema.version)
    }

    /// Throws `schemaProblem`, if any. Cheap: decided once, when the context is made.
    func checkSchema() throws {
        if let schemaProblem { throw schemaProblem }
    }

    /// Inserts `model` and the models it points to that are in no context yet.
    public func insert(_ model: some PersistentModel) throws {
        try checkSchema()
        try Insertion.insert(model, into: engine)
    }

    public func delete(_ model: some PersistentModel) throws {
        try checkSchema()
        guard let object = model._$backing.object else { return }
        try engine.delete(object)
    }

    public func save() throws {
        try checkSchema()
        try engine.save()
    }
    public func rollback() { engine.rollback() }
    public var hasChanges: Bool { engine.hasChanges }

    /// The objects of model `T` in id (creation) order, or those `condition` (SPEC §4) holds for.
    public func fetch<T: PersistentModel>(_ type: T.Type, where condition: String? = nil) throws -> [T] {
        T.instances(try engine.fetch(descriptor(type, condition)))
    }

    public func fetchCount<T: PersistentModel>(_ type: T.Type, where condition: String? = nil) throws -> Int {
        try engine.fetchCount(descriptor(type, condition))
    }

    private func descriptor<T: PersistentModel>(_ type: T.Type, _ condition: String?) throws -> Vein.FetchDescriptor {
        try checkSchema()
        var descriptor = Vein.FetchDescriptor(model: T.modelName)
        if let condition {
            guard let model = engine.manifest.model(named: T.modelName) else { throw ContextError.unknownModel(T.modelName) }
            descriptor.predicate = try TypeChecker.checkPredicate(condition, model: model, manifest: engine.manifest)
        }
        return descriptor
    }
}
