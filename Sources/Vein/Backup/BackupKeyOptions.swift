import Foundation

/// Where a backup's key comes from (docs/backup.md#keys), first match wins:
///
/// 1. `--backup-key-file` (a raw key, or one `export-key` wrapped under a passphrase; a file that does not
///    exist yet receives a new random key when a backup is written);
/// 2. the keyring: items of kind `backup` carrying the backup's id and the key's id;
/// 3. a new random key kept in the keyring (`--new-key`, when a backup is written);
/// 4. derived from the store's key: the store's own when writing, the key options given when reading.
package struct BackupKeyOptions: Sendable {
    package var keyFile: String?
    package var newKey = false
    package var keyring: (any Keyring)?
    /// Opens a wrapped key file.
    package var readPassphrase: (@Sendable () throws -> String)?
    /// The store's key options (reading: the key to derive from, when one is given explicitly).
    package var storeKeys: KeyOptions?

    package init(keyFile: String? = nil, newKey: Bool = false, keyring: (any Keyring)? = SecretServiceKeyring(),
                 readPassphrase: (@Sendable () throws -> String)? = nil, storeKeys: KeyOptions? = nil) {
        self.keyFile = keyFile
        self.newKey = newKey
        self.keyring = keyring
        self.readPassphrase = readPassphrase
        self.storeKeys = storeKeys
    }

    /// The key that seals `store`'s backups in `folder`.
    package func keyForWriting(store: Store, folder: BackupFolder) throws -> BackupKey {
        if let keyFile {
            if FileSystem.fileExists(keyFile) { return try read(keyFile, folder: folder) }
            let key = try BackupKey.random()
            try KeyFile.create(keyFile, key: key.cipherKey)
            return key
        }
        if let keyring, let own = try BackupKeyring.unlessUnreachable({ try BackupKeyring(keyring).key(of: folder.backupID, origin: .own) }) {
            return own
        }
        if newKey {
            guard let keyring else { throw KeyError.keyringUnavailable("no keyring to keep a new backup key in") }
            let key = try BackupKey.random()
            try BackupKeyring(keyring).keep(key, of: folder, origin: .own, app: store.meta.app)
            return key
        }
        guard store.encryption.isEncrypted else { throw BackupError.noKey(folder.path) }
        let key = try BackupKey.derived(from: try store.keyForCopies(), storeID: folder.storeID)
        // A store whose key is in the keyring: its backups are restored on this machine with nothing given.
        if store.encryption.keySource == .keyring, let keyring, try BackupKeyring(keyring).key(of: folder.backupID, id: key.id) == nil {
            try BackupKeyring(keyring).keep(key, of: folder, origin: .derived, app: store.meta.app)
        }
        return key
    }

    /// The key of `file` in `folder`, sealed with the key whose id is `id`.
    package func keyForReading(folder: BackupFolder, id: [UInt8], file: String) throws -> BackupKey {
        if let keyFile {
            let key = try read(keyFile, folder: folder)
            guard key.id == id else { throw BackupError.wrongKey(file: file, source: "the backup key file \(keyFile)") }
            return key
        }
        if let keyring, let key = try BackupKeyring.unlessUnreachable({ try BackupKeyring(keyring).key(of: folder.backupID, id: id) }) { return key }
        if let storeKeys, let (storeKey, source) = try storeKeys.explicitKey() {
            let key = try BackupKey.derived(from: storeKey, storeID: folder.storeID)
            guard key.id == id else { throw BackupError.wrongKey(file: file, source: "the store key from the \(source)") }
            return key
        }
        throw BackupError.noKey(folder.path)
    }

    private func read(_ path: String, folder: BackupFolder) throws -> BackupKey {
        let key = try KeyFile.read(path)
        if key.kind == .raw { return try BackupKey(key) }
        let text = key.text
        guard WrappedBackupKey.isWrapped(text + "\n") || WrappedBackupKey.isWrapped(text) else { throw BackupError.notABackupKey }
        guard let readPassphrase else { throw KeyError.passphraseUnavailable("no way to ask for the passphrase of \(path)") }
        return try WrappedBackupKey.unwrap(text, path: path, passphrase: try readPassphrase()).key
    }
}

/// Backup keys in the keyring: items of kind `backup`, found by the backup's id and the key's id, never
/// by a store's path (so no store lookup ever takes one for a store's key).
struct BackupKeyring {
    enum Origin: String { case own, derived }

    let keyring: any Keyring

    init(_ keyring: any Keyring) { self.keyring = keyring }

    static let kind = "backup"

    /// `body`'s answer, or nil when there is no keyring to ask (no Secret Service on this machine): the
    /// other sources still serve. A locked or failing keyring is an error: it may hold the key.
    static func unlessUnreachable(_ body: () throws -> BackupKey?) throws -> BackupKey? {
        do { return try body() } catch KeyError.keyringUnavailable { return nil }
    }

    func key(of backupID: String, id: [UInt8]) throws -> BackupKey? {
        try keys(matching: [KeyringAttribute.keyID: Hex.encode(Data(id))], backupID: backupID).first
    }

    func key(of backupID: String, origin: Origin) throws -> BackupKey? {
        try keys(matching: [KeyringAttribute.origin: origin.rawValue], backupID: backupID).first
    }

    private func keys(matching extra: [String: String], backupID: String) throws -> [BackupKey] {
        let match = extra.merging([KeyringAttribute.kind: Self.kind, KeyringAttribute.backup: backupID]) { a, _ in a }
        return try keyring.items(matching: match).compactMap { item in try item.key.map { try BackupKey($0) } }
    }

    func keep(_ key: BackupKey, of folder: BackupFolder, origin: Origin, app: String) throws {
        try keyring.store(secret: key.cipherKey, attributes: [
            KeyringAttribute.kind: Self.kind, KeyringAttribute.backup: folder.backupID, KeyringAttribute.keyID: Hex.encode(Data(key.id)),
            KeyringAttribute.origin: origin.rawValue, KeyringAttribute.state: KeyState.current.rawValue, KeyringAttribute.app: app,
        ], label: "Vein backup key for \(folder.path)")
    }
}
