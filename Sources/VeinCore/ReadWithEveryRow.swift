import Vein

/// A typed context reads with every row the required fields whose Swift type has no empty value (a
/// Codable struct with a required member, an enum that is not `CaseIterable`), lazy ones included and
/// whatever `propertiesToFetch` names. Left for later, such a field could find its row gone (deleted by
/// another context) or its container closed, and a property that cannot throw would have nothing to
/// return (`AbsentFieldValue`). The manifest is unchanged: the CLI still reads a lazy field lazily.
extension ObjectContext {
    /// The engine context of a typed context over `store` whose model classes are `models`.
    convenience init(store: Store, models: [any PersistentModel.Type]) {
        self.init(store: store, readWithEveryRow: Self.readWithEveryRow(models))
    }

    /// The engine context of a typed context over `database`, at `manifest`, whose model classes are `models`.
    convenience init(database: Database, manifest: SchemaManifest, models: [any PersistentModel.Type]) throws(DatabaseError) {
        try self.init(database: database, manifest: manifest, readWithEveryRow: Self.readWithEveryRow(models))
    }

    private static func readWithEveryRow(_ models: [any PersistentModel.Type]) -> [String: Set<String>] {
        Dictionary(models.map { ($0.modelName, $0._$schema.readWithEveryRow) }, uniquingKeysWith: { $0.union($1) })
    }
}
