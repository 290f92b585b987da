import Foundation

/// SwiftData's `ModelConfiguration`: where a container's store is. Vein's additions name what SwiftData
/// decides for the app: `appID` (the store's owner in its manifest, and the key's name in the keyring)
/// and `keyProvider` (the key; the Secret Service by default).
///
/// Defaults, when the app names neither: the app id is the executable's name
/// (`ProcessInfo.processName`), and the store is `default.vein` in the app's folder of the user's data
/// folder, `$XDG_DATA_HOME/APPID/` (`~/.local/share/APPID/` when `XDG_DATA_HOME` is unset), made 0700 when
/// missing: SwiftData's `default.store` in Application Support. `vein info ~/.local/share/APPID/default.vein`
/// then opens it with no key flags, as it opens any store an app made with the Secret Service provider.
public struct ModelConfiguration: Sendable {
    /// A plaintext store in a private temporary folder, removed with the container (`at: nil`).
    public let isStoredInMemoryOnly: Bool
    /// The store's file; nil: the default above (or none, in memory).
    public let url: URL?
    /// SwiftData's configuration name: the default store's file is `NAME.vein` instead of `default.vein`.
    public let name: String?
    /// The models this configuration names (`ModelConfiguration(for: User.self)`, `schema:`), nil when it
    /// names none. Vein keeps all of a container's models in its one store, so these need only be among
    /// the container's: one that is not is refused when the container is made.
    public let modelNames: [String]?
    /// SwiftData's `allowsSave`, true by default. False: the container reads the store and never writes it
    /// (it neither creates a missing store nor migrates one, and its contexts' `save` throws
    /// `ModelContainerError.savesNotAllowed`), for a store another process owns or one shipped read-only.
    public let allowsSave: Bool
    public let appID: String?
    public let keyProvider: any DatabaseKeyProvider
    /// Vein's: a store this configuration creates keeps its history (docs/history.md), which
    /// `ModelContext.fetchHistory` reads. SwiftData keeps it always; Vein asks, while its cost to inserts
    /// is above its aim (bench/README.md). A store that exists keeps what it was created with.
    public let keepsHistory: Bool

    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                appID: String? = nil, keyProvider: any DatabaseKeyProvider = SecretServiceKeyProvider(), keepsHistory: Bool = false) {
        self.init(name: name, models: schema?.models, isStoredInMemoryOnly: isStoredInMemoryOnly, url: nil,
                  allowsSave: allowsSave, appID: appID, keyProvider: keyProvider, keepsHistory: keepsHistory)
    }

    /// `ModelConfiguration(for: User.self, isStoredInMemoryOnly: true)`.
    /// (One type at least: `ModelConfiguration()` is the initializer above.)
    public init(for first: any PersistentModel.Type, _ more: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false,
                allowsSave: Bool = true, appID: String? = nil, keyProvider: any DatabaseKeyProvider = SecretServiceKeyProvider(),
                keepsHistory: Bool = false) {
        self.init(name: nil, models: [first] + more, isStoredInMemoryOnly: isStoredInMemoryOnly, url: nil,
                  allowsSave: allowsSave, appID: appID, keyProvider: keyProvider, keepsHistory: keepsHistory)
    }

    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true, appID: String? = nil,
                keyProvider: any DatabaseKeyProvider = SecretServiceKeyProvider(), keepsHistory: Bool = false) {
        self.init(name: name, models: schema?.models, isStoredInMemoryOnly: false, url: url, allowsSave: allowsSave,
                  appID: appID, keyProvider: keyProvider, keepsHistory: keepsHistory)
    }

    private init(name: String?, models: [any PersistentModel.Type]?, isStoredInMemoryOnly: Bool, url: URL?,
                 allowsSave: Bool, appID: String?, keyProvider: any DatabaseKeyProvider, keepsHistory: Bool) {
        self.allowsSave = allowsSave
        self.keepsHistory = keepsHistory
        self.name = name
        self.modelNames = models?.map { $0.modelName }
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.url = url
        self.appID = appID
        self.keyProvider = keyProvider
    }

    /// Throws when the configuration names a model the container does not have.
    func checkModels(in models: [any PersistentModel.Type]) throws {
        let known = Set(models.map { $0.modelName })
        let unknown = (modelNames ?? []).filter { !known.contains($0) }
        if !unknown.isEmpty { throw ModelContainerError.configurationModelsNotInContainer(unknown) }
    }

    /// The app id: the one given, or the executable's name.
    public var resolvedAppID: String { appID ?? ProcessInfo.processInfo.processName }

    /// The store's path (nil: in memory), making the default folder when it is the one used and the
    /// configuration allows saves (one that does not writes nothing, a folder included).
    public func storePath(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if isStoredInMemoryOnly { return nil }
        if let url { return url.path }
        let folder = Self.defaultFolder(appID: resolvedAppID, environment: environment)
        if allowsSave {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        return folder + "/\(name ?? "default").vein"
    }

    /// `$XDG_DATA_HOME/APPID`, or `~/.local/share/APPID`.
    public static func defaultFolder(appID: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return data + "/" + appID
    }
}
