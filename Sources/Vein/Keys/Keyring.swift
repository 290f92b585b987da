import CVeinSecret
import Foundation

/// Where Vein keeps keys it generates: a keyring addressed by the store's real path.
///
/// Items carry attributes `app` and `store` plus `state` (`current`; `pending` while a key rotation is
/// under way; `retired` for a key a rotation replaced, kept for the older copies it opens), and a label
/// naming both. Lookups go by `store` alone, because the app id is inside the encrypted store and cannot
/// be read before its key is found. The other attributes are listed in `KeyringAttribute`.
public protocol Keyring: Sendable {
    func store(key: CipherKey, app: String, storePath: String, state: KeyState) throws(KeyError)
    /// The key, nil when the keyring answered that it has none. Failing to reach the keyring is an error,
    /// never nil: a failed read must not look like "no key" (ARCHITECTURE.md I10).
    func lookup(storePath: String, state: KeyState) throws(KeyError) -> CipherKey?
    @discardableResult
    func remove(storePath: String, state: KeyState) throws(KeyError) -> Bool
    /// Every Vein item whose attributes include `attributes` (every Vein item when empty).
    func items(matching attributes: [String: String]) throws(KeyError) -> [KeyringItem]
    /// Stores `secret` under exactly `attributes`, replacing an item with the same attributes.
    func store(secret: CipherKey, attributes: [String: String], label: String) throws(KeyError)
    /// Gives every item matching `matching` the attribute set `attributes` and the label `label`, keeping its
    /// secret. Returns how many items changed.
    @discardableResult
    func relabel(matching: [String: String], attributes: [String: String], label: String) throws(KeyError) -> Int
    /// Deletes every item matching `attributes`. Returns how many were deleted.
    @discardableResult
    func delete(matching attributes: [String: String]) throws(KeyError) -> Int
}

/// For a keyring that keeps only current and pending keys (written before retired keys existed): it lists
/// nothing and refuses items with other attributes, so a rotation refuses to replace its current key rather
/// than lose it.
extension Keyring {
    public func items(matching attributes: [String: String]) throws(KeyError) -> [KeyringItem] { [] }

    public func store(secret: CipherKey, attributes: [String: String], label: String) throws(KeyError) {
        throw .keyringFailed("this keyring keeps only current and pending keys")
    }

    @discardableResult
    public func relabel(matching: [String: String], attributes: [String: String], label: String) throws(KeyError) -> Int {
        throw .keyringFailed("this keyring keeps only current and pending keys")
    }

    @discardableResult
    public func delete(matching attributes: [String: String]) throws(KeyError) -> Int { 0 }
}

public enum KeyState: String, Sendable {
    case current
    case pending
    /// Replaced by a rotation; skipped by lookups, listed by `vein key status`.
    case retired
}

/// The names of the attributes Vein's keyring items carry. They are part of items already written, so a
/// name never changes.
public enum KeyringAttribute {
    public static let app = "app"
    public static let store = "store"
    public static let state = "state"
    /// A retired key's date (ISO 8601, UTC).
    public static let retired = "retired"
    /// Where the store's key went when this one was retired: a `KeySource.kind`.
    public static let movedTo = "moved-to"
    /// With `moved-to` = `key-file`: the key file's path.
    public static let keyFile = "key-file"
    /// A backup record's backup (its real path), date and key fingerprint (`BackupRecord`).
    public static let backup = "backup"
    public static let created = "created"
    public static let fingerprint = "fingerprint"
    /// What an item's secret opens when it is not a store's key (`backup`; store keys carry no kind, as
    /// they did before kinds existed), a backup key's id, and whether it was made for the backup (`own`)
    /// or derived from its store's key (`derived`).
    public static let kind = "kind"
    public static let keyID = "key-id"
    public static let origin = "origin"
    /// A sync key's sync (kind `sync`): the id every replica of the sync shares.
    public static let sync = "sync"
}

/// One keyring item: its attributes, and its secret read as a key when it holds one (a backup record holds
/// none).
public struct KeyringItem: Sendable {
    public let attributes: [String: String]
    public let key: CipherKey?

    public init(attributes: [String: String], key: CipherKey?) {
        self.attributes = attributes
        self.key = key
    }

    public var state: String? { attributes[KeyringAttribute.state] }
    public var storePath: String? { attributes[KeyringAttribute.store] }
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

    public func items(matching attributes: [String: String]) throws(KeyError) -> [KeyringItem] {
        final class Found { var items: [KeyringItem] = [] }
        let found = Found()
        var message: UnsafeMutablePointer<CChar>?
        let rc = Self.withPairs(attributes) { pairs in
            vein_secret_search(pairs, { context, pairs, secret in
                let found = Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue()
                var attributes: [String: String] = [:]
                var pair = pairs
                while let name = pair?[0], let value = pair?[1] {
                    attributes[String(cString: name)] = String(cString: value)
                    pair = pair! + 2
                }
                // libsecret's own attribute, the same on every Vein item.
                attributes.removeValue(forKey: "xdg:schema")
                let holdsKey = [KeyState.current, .pending, .retired].map(\.rawValue).contains(attributes[KeyringAttribute.state] ?? "")
                let key = holdsKey ? secret.flatMap { try? CipherKey(text: String(cString: $0)) } : nil
                found.items.append(KeyringItem(attributes: attributes, key: key))
            }, Unmanaged.passUnretained(found).toOpaque(), &message)
        }
        if rc < 0 { throw classify(rc, message) }
        return found.items
    }

    public func store(secret: CipherKey, attributes: [String: String], label: String) throws(KeyError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = Self.withPairs(attributes) { pairs in
            secret.withText { vein_secret_store_with(pairs, label, $0.baseAddress!.assumingMemoryBound(to: CChar.self), &message) }
        }
        if rc != 0 { throw classify(rc, message) }
    }

    @discardableResult
    public func relabel(matching: [String: String], attributes: [String: String], label: String) throws(KeyError) -> Int {
        var message: UnsafeMutablePointer<CChar>?
        let rc = Self.withPairs(matching) { match in Self.withPairs(attributes) { vein_secret_relabel(match, $0, label, &message) } }
        if rc < 0 { throw classify(rc, message) }
        return Int(rc)
    }

    @discardableResult
    public func delete(matching attributes: [String: String]) throws(KeyError) -> Int {
        var message: UnsafeMutablePointer<CChar>?
        let rc = Self.withPairs(attributes) { vein_secret_delete($0, &message) }
        if rc < 0 { throw classify(rc, message) }
        return Int(rc)
    }

    /// Calls `body` with `attributes` as the C side takes them: alternating names and values, then NULL.
    private static func withPairs<R>(_ attributes: [String: String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let strings: [UnsafeMutablePointer<CChar>?] = attributes.sorted { $0.key < $1.key }.flatMap { [strdup($0.key), strdup($0.value)] } + [nil]
        defer { strings.forEach { free($0) } }
        return strings.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { body($0) }
        }
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
