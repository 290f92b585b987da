import Vein

/// SwiftData's `Schema`: a list of model classes and its version, for `ModelContainer(for: Schema([…]))`.
/// Vein's schemas are `VersionedSchema`s (`Schema(versionedSchema:)` takes one); a `Schema` of bare
/// model classes is at version 1.0.0 unless given another.
public struct Schema: Sendable {
    /// SwiftData's `Schema.Version(1, 0, 0)`: Vein's `SchemaVersion` (`ModelVersion`).
    public typealias Version = SchemaVersion

    public let models: [any PersistentModel.Type]
    public let version: Version
    /// The schema `init(versionedSchema:)` took: its manifest is that schema's, which throws when it
    /// declares no version rather than making a store at the version it reads then.
    private let versionedSchema: (any VersionedSchema.Type)?

    public init(_ models: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        self.models = models
        self.version = version
        versionedSchema = nil
    }

    public init(_ models: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(models, version: version)
    }

    public init(versionedSchema: any VersionedSchema.Type) {
        models = versionedSchema.models
        version = versionedSchema.version
        self.versionedSchema = versionedSchema
    }

    /// The manifest for app `appID`, as `VersionedSchema.manifest(appID:)` makes it.
    public func manifest(appID: String) throws -> SchemaManifest {
        if let versionedSchema { return try versionedSchema.manifest(appID: appID) }
        return try Self.manifest(of: models, version: version, appID: appID, file: "Schema \(version)")
    }
}
