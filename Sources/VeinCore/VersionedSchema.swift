import Vein

/// One version of an app's schema: its version number and its model classes (docs/app-guide.md). Its manifest is
/// the canonical manifest the CLI reads (docs/manifest.md), so `vein create` and `vein migrate check` work on
/// what the app declares.
/// A `SchemaMigrationPlan` lists the versions in order with a stage between each pair.
///
/// The version is `version` (Vein's name) or `versionIdentifier` (SwiftData's): declare one of the two,
/// each defaults to the other. A schema that declares neither reads 0.0.0 and its container (and
/// `manifest(appID:)`) throws `ModelContainerError.noVersion`, as Swift cannot require one of two
/// (`VersionDefaulting`).
public protocol VersionedSchema: Sendable {
    static var version: ModelVersion { get }
    static var versionIdentifier: Schema.Version { get }
    static var models: [any PersistentModel.Type] { get }
}

extension VersionedSchema {
    public static var version: ModelVersion { VersionDefaulting.defaulting(Self.self) { versionIdentifier } }
    public static var versionIdentifier: Schema.Version { VersionDefaulting.defaulting(Self.self) { version } }

    /// The schema manifest for app `appID`, validated as the CLI validates a manifest file (it is
    /// parsed back from its canonical text, so an app cannot declare what the CLI would refuse).
    /// An inverse named on one side only is named on both.
    public static func manifest(appID: String) throws -> SchemaManifest {
        try Schema.manifest(of: models, version: try VersionDefaulting.declaredVersion(of: Self.self), appID: appID, file: "\(Self.self)")
    }
}

extension Schema {
    /// The manifest of `models` at `version` (see `VersionedSchema.manifest(appID:)`); `file` names the
    /// schema in a problem's message.
    static func manifest(of models: [any PersistentModel.Type], version: SchemaVersion, appID: String,
                         file: String) throws -> SchemaManifest {
        var models = models.map { $0._$schema.schema }
        for model in models {
            for relationship in model.relationships {
                guard let inverse = relationship.inverse,
                      let t = models.firstIndex(where: { $0.name == relationship.target }),
                      let r = models[t].relationships.firstIndex(where: { $0.name == inverse }),
                      models[t].relationships[r].inverse == nil else { continue }
                models[t].relationships[r].inverse = relationship.name
            }
        }
        let built = SchemaManifest(app: appID, version: version, models: models)
        return try ManifestParser.parse(built.canonicalText, file: file)
    }
}
