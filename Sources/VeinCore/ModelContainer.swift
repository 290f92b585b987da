import Foundation
import Vein

/// A store opened for an app's schema (SPEC §10): creates the store at the first run, opens it after.
///
/// Built so far: a store at a path, created from `V`'s manifest or opened when it holds exactly that
/// schema; the main `context` and `newContext()`. Not built yet (issue 13 item 4): in-memory stores
/// (`at: nil`), `migration:` plans and `migrate()` (a store at another schema version is refused with
/// `ModelContainerError.schemaMismatch`), and `DatabaseKeyProvider` (keys come from the engine's
/// `KeyOptions`: by default a new random key kept in the Secret Service item the CLI looks up).
public final class ModelContainer: @unchecked Sendable {
    public let store: Store
    /// The main context.
    public let context: ModelContext

    public init<V: VersionedSchema>(for schema: V.Type, at path: String, appID: String,
                                    keyProvider: KeyOptions = KeyOptions()) throws {
        let manifest = try V.manifest(appID: appID)
        if !FileManager.default.fileExists(atPath: path) {
            _ = try StoreCreator.create(at: path, manifest: manifest, protection: .encrypted(keyProvider))
        }
        store = try Store.open(path, keys: keyProvider)
        guard store.manifest.sha256 == manifest.sha256 else {
            throw ModelContainerError.schemaMismatch(path: path, store: store.manifest.version, app: manifest.version)
        }
        context = ModelContext(Vein.ModelContext(store: store))
    }

    /// A context of its own (its own connection), for another thread.
    public func newContext() -> ModelContext {
        ModelContext(Vein.ModelContext(store: store))
    }
}

public enum ModelContainerError: Error, Equatable, CustomStringConvertible {
    /// The store holds another schema than the app declares (and migration is not built yet).
    case schemaMismatch(path: String, store: SchemaVersion, app: SchemaVersion)

    public var description: String {
        switch self {
        case .schemaMismatch(let path, let store, let app):
            return store == app
                ? "\(path) holds a different schema \(store) than the app declares for the same version"
                : "\(path) is at schema \(store), the app declares \(app): migration is not built yet"
        }
    }
}
