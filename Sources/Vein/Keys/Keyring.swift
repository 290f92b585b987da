import CVeinSecret
import Foundation

/// Where Vein keeps keys it generates: a keyring addressed by the store's real path.
///
/// Items carry attributes `app` and `store` plus `state` (`current`, or `pending` while a key rotation is
/// under way), and a label naming both. Lookups go by `store` alone, because the app id is inside the
/// encrypted store and cannot be read before its key is found.
public protocol Keyring: Sendable {
    func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError)
    /// The key, nil when the keyring answered that it has none. Failing to reach the keyring is an error,
    /// never nil: a failed read must not look like "no key".
    func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey?
    @discardableResult
    func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool
}

public enum KeyState: String, Sendable {
    case current
    case pending
}

/// The freedesktop Secret Service (gnome-keyring, KeePassXC, …) through libsecret.
public struct SecretServiceKeyring: Keyring {
    public init() {}

    public func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError) {
        var message: UnsafeMutablePointer<CChar>?
        let label = "Vein key for \(app) store \(storePath)" + (state == .pending ? " (pending rotation)" : "")
        let rc = key.withText { vein_secret_store(app, storePath, state.rawValue, label, $0.baseAddress!.assumingMemoryBound(to: CChar.self), &message) }
        if rc != 0 { throw classify(rc, message) }
    }

    public func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey? {
        var secret: UnsafeMutablePointer<CChar>?
        var message: UnsafeMutablePointer<CChar>?
        let rc = vein_secret_lookup(storePath, state.rawValue, &secret, &message)
        if rc < 0 { throw classify(rc, message) }
        guard rc == 1, let secret else { return nil }
        defer { vein_secret_free_secret(secret) }
        do { return try CipherKey(text: String(cString: secret)) } catch {
            throw .keyringFailed("the keyring item for \(storePath) holds no usable key")
        }
    }

    @discardableResult
    public func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool {
        var message: UnsafeMutablePointer<CChar>?
        let rc = vein_secret_clear(storePath, state.rawValue, &message)
        if rc < 0 { throw classify(rc, message) }
        return rc == 1
    }

    /// A locked keyring is "locked"; connection failures (no bus, no service) are "unavailable"; anything
    /// else the service said is a failure. All are errors; none is "no key".
    private func classify(_ rc: Int32, _ message: UnsafeMutablePointer<CChar>?) -> KeyError {
        let text = message.map { String(cString: $0) } ?? "unknown error"
        vein_secret_free_message(message)
        if rc == VEIN_SECRET_LOCKED { return .keyringLocked }
        let unreachable = ["Could not connect", "Cannot autolaunch", "No such file", "not provided by any .service",
                           "ServiceUnknown", "Connection refused", "Failed to execute child", "no secret service"]
        if unreachable.contains(where: { text.localizedCaseInsensitiveContains($0) }) { return .keyringUnavailable(text) }
        return .keyringFailed(text)
    }
}
