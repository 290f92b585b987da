import Vein

/// SwiftData's names for the container: its main context and its initializers.
extension ModelContainer {
    /// The container's context, `context` (SwiftData's main context; Vein's is usable from any thread, its
    /// operations serialised by a lock).
    public var mainContext: ModelContext { context }

    /// `ModelContainer(for: Person.self, Pet.self)`: a container for these models at `Schema`'s version
    /// 1.0.0, without a migration plan (a store of another schema is refused: declare a `VersionedSchema`
    /// and a plan to migrate). The store is the configuration's (see `ModelConfiguration` for the
    /// defaults); with several configurations, the first.
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// `ModelContainer(for: Schema([Person.self, Pet.self]), configurations: …)`.
    public convenience init(for schema: Schema, configurations: ModelConfiguration...) throws {
        try self.init(for: schema, configurations: configurations)
    }

    /// `ModelContainer(for: SchemaV2.self, migrationPlan: Plan.self)`: opens the store and migrates it
    /// along the plan, as SwiftData does when the container is made (Vein's own initializer leaves
    /// `migrate()` to the app). `SchemaV2` must be the plan's last schema.
    public convenience init<V: VersionedSchema>(for schema: V.Type, migrationPlan: (any SchemaMigrationPlan.Type)?,
                                                configurations: ModelConfiguration...) throws {
        let configuration = configurations.first ?? ModelConfiguration()
        try configuration.checkModels(in: V.models)
        try self.init(schema, plan: migrationPlan, at: try configuration.storePath(), appID: configuration.resolvedAppID,
                      keyProvider: configuration.keyProvider, allowsSave: configuration.allowsSave,
                      keepsHistory: configuration.keepsHistory)
        try migrate()
    }

    private convenience init(for schema: Schema, configurations: [ModelConfiguration]) throws {
        let configuration = configurations.first ?? ModelConfiguration()
        try configuration.checkModels(in: schema.models)
        let appID = configuration.resolvedAppID
        try self.init(manifest: try schema.manifest(appID: appID), models: schema.models, plan: nil,
                      at: try configuration.storePath(), keys: configuration.keyProvider.keyOptions,
                      allowsSave: configuration.allowsSave, keepsHistory: configuration.keepsHistory)
    }
}
