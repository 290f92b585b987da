import Vein

/// The typed unit of work over a store (SPEC §10), over the engine's `ModelContext`: @Model instances are
/// inserted, changed and deleted in memory, and `save` writes them all in one transaction, or nothing.
/// One instance per row while the app holds it.
///
/// Built so far: insert, delete, save, rollback, hasChanges, fetch and fetchCount of a whole model or
/// with a condition in Vein's expression language (SPEC §4), and fetch, fetchCount and fetchIdentifiers
/// with a typed `FetchDescriptor<T>` (Fetch/ModelContext+TypedFetch.swift). Not built yet: the per-model
/// conveniences (`Post.fetch(where:sort:in:)`, `upsert`, `post.delete()`).
public final class ModelContext: @unchecked Sendable {
    /// The engine's context, for what the typed surface does not offer yet.
    public let engine: Vein.ModelContext

    public init(_ engine: Vein.ModelContext) {
        self.engine = engine
    }

    /// Inserts `model` and the models it points to that are in no context yet.
    public func insert(_ model: some PersistentModel) throws {
        try Insertion.insert(model, into: engine)
    }

    public func delete(_ model: some PersistentModel) throws {
        guard let object = model._$backing.object else { return }
        try engine.delete(object)
    }

    public func save() throws { try engine.save() }
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
        var descriptor = Vein.FetchDescriptor(model: T.modelName)
        if let condition {
            guard let model = engine.manifest.model(named: T.modelName) else { throw ContextError.unknownModel(T.modelName) }
            descriptor.predicate = try TypeChecker.checkPredicate(condition, model: model, manifest: engine.manifest)
        }
        return descriptor
    }
}
