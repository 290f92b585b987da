import Foundation
import Vein

/// Where a container's store key comes from (docs/keys.md, docs/app-guide.md). A provider says which engine key sources to
/// use; the engine reads, generates and keeps the key, so an app and the `vein` CLI find the same key the
/// same way. Write your own by returning `KeyOptions` (a custom `Keyring`, say).
public protocol DatabaseKeyProvider: Sendable {
    /// The key sources the store is created and opened with.
    var keyOptions: KeyOptions { get }
}

/// The default: the Secret Service (gnome-keyring, KeePassXC, …). A new store gets a random key kept in
/// the keyring item the CLI looks up (attributes `app`, `store` = the store's real path, `state`), so
/// `vein info STORE` opens what the app created with no flags. A keyring that is locked, failing or not
/// reachable is an error, never a new key (ARCHITECTURE.md I10). `VEIN_KEY` is not consulted: the app's key is where
/// the app put it, whatever its environment holds.
public struct SecretServiceKeyProvider: DatabaseKeyProvider {
    public let keyring: any Keyring

    public init(keyring: any Keyring = SecretServiceKeyring()) {
        self.keyring = keyring
    }

    public var keyOptions: KeyOptions { KeyOptions(environment: [:], keyring: keyring) }
}

/// A key file (a 64-hex raw key or a passphrase on one line, mode 0600): read when it exists, written with
/// a new random key when the store is created and the file does not exist yet. Opens with
/// `vein … --key-file PATH`.
public struct KeyFileKeyProvider: DatabaseKeyProvider {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public var keyOptions: KeyOptions { KeyOptions(keyFile: path, environment: [:], keyring: nil) }
}

/// A key in an environment variable (a raw key or a passphrase), as `vein … --key-env NAME` reads it. The
/// variable must be set and non-empty, also when the store is created (no key is made up).
public struct EnvironmentKeyProvider: DatabaseKeyProvider {
    public let variable: String
    public let environment: [String: String]

    public init(variable: String = KeyOptions.environmentVariable,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.variable = variable
        self.environment = environment
    }

    public var keyOptions: KeyOptions { KeyOptions(keyEnv: variable, environment: environment, keyring: nil) }
}

/// The engine's own key options are a provider too (the CLI's rules: explicit sources, `VEIN_KEY`, then the keyring).
extension KeyOptions: DatabaseKeyProvider {
    public var keyOptions: KeyOptions { self }
}

extension DatabaseKeyProvider where Self == SecretServiceKeyProvider {
    public static var secretService: SecretServiceKeyProvider { SecretServiceKeyProvider() }
}

extension DatabaseKeyProvider where Self == KeyFileKeyProvider {
    public static func keyFile(_ path: String) -> KeyFileKeyProvider { KeyFileKeyProvider(path: path) }
}

extension DatabaseKeyProvider where Self == EnvironmentKeyProvider {
    public static func environment(_ variable: String) -> EnvironmentKeyProvider { EnvironmentKeyProvider(variable: variable) }
}
