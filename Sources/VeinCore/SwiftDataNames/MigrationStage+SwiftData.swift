/// SwiftData's argument labels for a stage (`fromVersion:toVersion:`), for plans written against
/// SwiftData's documentation: the same stages as `lightweight(from:to:)` and `custom(from:to:…)`.
extension MigrationStage {
    public static func lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type) -> MigrationStage {
        .lightweight(from: fromVersion, to: toVersion)
    }

    public static func custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                              willMigrate: (@Sendable (ModelContext) throws -> Void)?,
                              didMigrate: (@Sendable (ModelContext) throws -> Void)?) -> MigrationStage {
        .custom(from: fromVersion, to: toVersion, willMigrate: willMigrate, didMigrate: didMigrate)
    }
}
