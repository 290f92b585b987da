import Foundation

/// The sync key in a file (docs/sync.md#the-sync-key): raw (64 hex digits, what `init` makes and `sync`
/// reads), or wrapped under a passphrase (what `export-key` writes, for a machine that joins with nothing
/// else), in the wrapped format of backup keys, whose id line names the sync.
package enum SyncKey {
    /// The key in `path`: a wrapped one is opened with the passphrase `readPassphrase` gives, and said so.
    package static func read(_ path: String, readPassphrase: (() throws -> String)? = nil) throws -> (key: BackupKey, wrapped: Bool) {
        let key = try KeyFile.read(path)
        if key.kind == .raw {
            guard key.secret.count == AESGCM.keyLength else { throw SyncError.notASyncKey(path) }
            return (try BackupKey(key), false)
        }
        let text = key.text
        guard WrappedBackupKey.isWrapped(text + "\n") || WrappedBackupKey.isWrapped(text) else { throw SyncError.notASyncKey(path) }
        guard let readPassphrase else { throw KeyError.passphraseUnavailable("no way to ask for the passphrase of \(path)") }
        do {
            return (try WrappedBackupKey.unwrap(text, path: path, passphrase: try readPassphrase()).key, true)
        } catch BackupError.wrongPassphrase {
            throw SyncError.wrongPassphrase(path)
        } catch BackupError.notABackupKey {
            throw SyncError.notASyncKey(path)
        }
    }

    /// Writes the sync key of `store`'s sync to a new file at `path` (mode 0600), wrapped under `passphrase`.
    package static func export(_ store: Store, to path: String, passphrase: String, keyring: (any Keyring)? = SecretServiceKeyring()) throws {
        guard let state = try SyncState.read(from: store.database) else { throw SyncError.notSynced(store.path) }
        let key = try SyncKey.key(of: state, keyring: keyring)
        let text = try WrappedBackupKey.wrap(key, backupID: state.syncID, passphrase: passphrase)
        let staged = try StagedFile(target: path, tag: StagedFile.Tag.writing.rawValue, mode: 0o600, keepsMode: false, placement: .create)
        defer { staged.discard() }
        try staged.write(Array(text.utf8))
        try staged.commit()
    }

    /// The key a replica syncs with: from its key file, or from the keyring when it has none.
    static func key(of state: SyncState, keyring: (any Keyring)?) throws -> BackupKey {
        if let keyFile = state.keyFile { return try read(keyFile).key }
        return try SyncKeyring(keyring).key(of: state.syncID, id: state.keyID.flatMap { Hex.decode($0) }.map(Array.init))
    }

    /// The newest key of the sync `relay` carries in this user's keyring (a replica joined on a machine
    /// that has the key: `vein sync init` without a key file kept it there, and a rotation the new one).
    package static func fromKeyring(relay location: String, keyring: (any Keyring)? = SecretServiceKeyring()) throws -> BackupKey {
        let relay = try SyncRelay.open(location)
        let keys = try SyncKeyring(keyring).keys(of: relay.syncID)
        for epoch in ([SyncRelay.firstEpoch] + (try relay.backend.keyEpochs())).reversed() {
            let id = try SyncKeyChain.keyID(ofEpoch: epoch, relay: relay)
            if let key = keys.first(where: { $0.id == id }) { return key }
        }
        throw SyncError.noSyncKey(sync: relay.syncID)
    }

    /// Keeps `key` raw in a new file at `path` (mode 0600): a replica that joined with a wrapped key syncs
    /// from then on without asking.
    package static func keep(_ key: BackupKey, at path: String) throws {
        try KeyFile.create(path, key: key.cipherKey)
    }
}
