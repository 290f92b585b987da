import Foundation

/// A key that a rotation took out of use for its store, kept because copies and backups made before the
/// rotation open only with it. Vein never deletes one silently: a keyring item gets `state=retired` (lookups
/// skip it), a key file keeps its key as `FILE.retired-DATE` beside it (`KeyFile.retire`). Only
/// `vein key forget --purge` deletes retired keyring items; retired key files are the user's to remove.
public struct RetiredKey: Sendable, Equatable {
    public enum Place: Sendable, Equatable {
        case keyring
        /// The file holding the retired key (`FILE.retired-DATE`).
        case keyFile(String)
    }

    public let place: Place
    /// When it was retired (ISO 8601, UTC, to the second).
    public let retiredAt: String
    /// Where the store's key went, when that was recorded (keyring items): another key file, a passphrase,
    /// or the keyring itself (a new key in place).
    public let movedTo: KeySource?
    /// The key itself, to match backups made with it; never shown.
    let key: CipherKey?

    /// The time format of `retiredAt` and of retired items' `retired` attribute.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

extension Keyring {
    /// Marks the store's current item retired, when it holds `key`: the item keeps its key and gets
    /// `state=retired`, the date and where the store's key went, so that lookups skip it and `vein info`
    /// can say where the key is now. Returns whether an item was retired.
    @discardableResult
    package func retireCurrent(storePath: String, holding key: CipherKey, movedTo: KeySource, at date: Date) throws(KeyError) -> Bool {
        let match = [KeyringAttribute.store: storePath, KeyringAttribute.state: KeyState.current.rawValue]
        guard let item = try items(matching: match).first(where: { $0.key == key }) else { return false }
        var attributes = item.attributes
        let retiredAt = RetiredKey.timestamp(date)
        attributes[KeyringAttribute.state] = KeyState.retired.rawValue
        attributes[KeyringAttribute.retired] = retiredAt
        attributes = attributes.filter { !Self.moveAttributes.contains($0.key) }.merging(Self.attributes(movedTo: movedTo)) { $1 }
        return try relabel(matching: match, attributes: attributes,
                           label: Self.label(of: attributes, storePath: storePath) + " (retired \(retiredAt))") > 0
    }

    /// The store's retired keys in the keyring, oldest first.
    package func retiredKeys(storePath: String) throws(KeyError) -> [RetiredKey] {
        let items = try items(matching: [KeyringAttribute.store: storePath, KeyringAttribute.state: KeyState.retired.rawValue])
        return items.map { item in
            RetiredKey(place: .keyring, retiredAt: item.attributes[KeyringAttribute.retired] ?? "",
                       movedTo: Self.source(movedTo: item.attributes), key: item.key)
        }.sorted { $0.retiredAt < $1.retiredAt }
    }

    /// The path of another store whose current key opens the file at `realPath` (a store moved or copied
    /// from there keeps opening with the key kept under its old path), or nil.
    package func pathWhoseKeyOpens(_ realPath: String) throws(KeyError) -> String? {
        let candidates = try items(matching: [KeyringAttribute.state: KeyState.current.rawValue])
        for item in candidates.sorted(by: { ($0.storePath ?? "") < ($1.storePath ?? "") }) {
            guard let path = item.storePath, path != realPath, let key = item.key else { continue }
            if KeyProbe.opens(realPath, with: key) { return path }
        }
        return nil
    }
}

/// Whether a key decrypts a file: its first page is read (immutable: no lock, no -wal or -shm made).
enum KeyProbe {
    static func opens(_ path: String, with key: CipherKey) -> Bool {
        guard let database = try? Database(path: path, mode: .immutable, key: key) else { return false }
        try? database.close()
        return true
    }

    /// `opens`, for a path that may hold anything or nothing: only a non-empty regular file is read (a FIFO
    /// would block the read).
    static func opensStoreFile(_ path: String, with key: CipherKey) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return false }
        return opens(path, with: key)
    }
}
