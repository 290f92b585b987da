import Foundation

/// A rotation that moves a store's key out of the keyring (to a passphrase or a key file) can only retire
/// the keyring's item after the rename, and a process killed between the two would leave an item that
/// still says `current` but no longer opens the store: "wrong key" from then on, and a key no command lists.
/// So the rotation marks the item before the store changes (`moved-to`, and `key-file`, while `state`
/// stays `current`): an open that finds the marked key no longer opening the store finishes the retirement
/// that rotation began, and says where the key went.
extension Keyring {
    /// Marks the store's current item holding `key` as being moved to `destination`. Throws when the
    /// keyring cannot be written, before anything changed: better than failing to retire it after the rename.
    package func markMoving(storePath: String, holding key: CipherKey, to destination: KeySource) throws(KeyError) {
        let match = [KeyringAttribute.store: storePath, KeyringAttribute.state: KeyState.current.rawValue]
        guard let item = try items(matching: match).first(where: { $0.key == key }) else {
            throw .keyringFailed("the keyring's current key for \(storePath) is not the one that opened it")
        }
        var attributes = item.attributes.filter { !Self.moveAttributes.contains($0.key) }
        attributes.merge(Self.attributes(movedTo: destination)) { $1 }
        guard try relabel(matching: match, attributes: attributes, label: Self.label(of: attributes, storePath: storePath)) > 0 else {
            throw .keyringFailed("the keyring's current key for \(storePath) could not be marked as moving")
        }
    }

    /// Takes the mark off again (the rotation failed before the store changed). A mark left on a key that
    /// opens the store is never read, so a failure here changes nothing.
    package func unmarkMoving(storePath: String) {
        let match = [KeyringAttribute.store: storePath, KeyringAttribute.state: KeyState.current.rawValue]
        guard let item = try? items(matching: match).first, item.attributes[KeyringAttribute.movedTo] != nil else { return }
        let attributes = item.attributes.filter { !Self.moveAttributes.contains($0.key) }
        _ = try? relabel(matching: match, attributes: attributes, label: Self.label(of: attributes, storePath: storePath))
    }

    /// Why the keyring's current key for `storePath`, `tried`, does not open the file there, when the keyring
    /// can tell; nil when it cannot (then it is a wrong key). Either a rotation marked the item as moving
    /// and stopped after the store changed (the item is retired now, as that rotation would have done, and
    /// the answer says where the key went), or a key retired for this path opens the file (a copy from before
    /// that rotation was put back there).
    package func explainWrongKey(storePath: String, tried: CipherKey, at date: Date) -> KeyError? {
        let match = [KeyringAttribute.store: storePath, KeyringAttribute.state: KeyState.current.rawValue]
        if let item = try? items(matching: match).first(where: { $0.key == tried }),
           let movedTo = Self.source(movedTo: item.attributes),
           (try? retireCurrent(storePath: storePath, holding: tried, movedTo: movedTo, at: date)) == true {
            return .keyRetired(store: storePath, retiredAt: RetiredKey.timestamp(date), movedTo: movedTo)
        }
        let retired = (try? retiredKeys(storePath: storePath)) ?? []
        if let opening = retired.last(where: { $0.key.map { KeyProbe.opensStoreFile(storePath, with: $0) } ?? false }) {
            return .retiredKeyOpens(store: storePath, retiredAt: opening.retiredAt)
        }
        return nil
    }

    /// The attributes that say where a store's key went (or is going).
    static var moveAttributes: [String] { [KeyringAttribute.movedTo, KeyringAttribute.keyFile] }

    static func attributes(movedTo destination: KeySource) -> [String: String] {
        var attributes = [KeyringAttribute.movedTo: destination.kind]
        if case .keyFile(let path) = destination { attributes[KeyringAttribute.keyFile] = path }
        return attributes
    }

    /// Where the attributes say the key went; nil when they do not say.
    static func source(movedTo attributes: [String: String]) -> KeySource? {
        switch attributes[KeyringAttribute.movedTo] {
        case "keyring": .keyring
        case "passphrase": .passphrasePrompt
        case "key-file": .keyFile(attributes[KeyringAttribute.keyFile] ?? "?")
        default: nil
        }
    }

    /// The label of a current key's item, as `SecretServiceKeyring.store` writes it.
    static func label(of attributes: [String: String], storePath: String) -> String {
        "Vein key for \(attributes[KeyringAttribute.app] ?? "unknown app") store \(storePath)"
    }
}
