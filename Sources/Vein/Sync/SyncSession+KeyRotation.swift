import Foundation

/// Rotating the sync key (docs/sync.md#rotating-the-sync-key): a new key epoch, whose key file on the
/// relay holds the previous key sealed under the new one. Files sealed from then on are of the new epoch,
/// so a replica not given the new key reads nothing written after, and one given it reads everything.
extension SyncSession {
    /// What `rotateKey` did.
    package enum Rotation: Equatable, Sendable {
        /// This replica started key epoch `epoch`, with a new key.
        case rotated(epoch: UInt32)
        /// Another replica had rotated to `epoch`; this replica took that epoch's key.
        case adopted(epoch: UInt32)
    }

    /// Starts a new key epoch with a new key kept in `keyFile` (made there when it does not exist, taken
    /// from it when it does) or, without one, in this user's keyring; naming the key it holds already does
    /// nothing. When the relay is at a later epoch
    /// than this replica holds (another replica rotated), takes that epoch's key instead: from `keyFile`,
    /// or from the keyring. Safe to run again after a crash: a key published but not yet recorded is
    /// taken, a key kept but not yet published is published.
    @discardableResult
    package func rotateKey(to keyFile: String?) throws -> Rotation {
        try refuseForgotten()
        let newest = try SyncKeyChain.newestEpoch(of: relay)
        if newest > keys.epoch {
            guard let keyFile else {
                try catchUpKey()
                return .adopted(epoch: newest)
            }
            guard FileSystem.fileExists(keyFile) else { throw SyncError.keyRotated(relay.location, epoch: newest, held: keys.epoch) }
            let key = try Self.readKey(keyFile)
            guard key.id == (try SyncKeyChain.keyID(ofEpoch: newest, relay: relay)) else {
                throw SyncError.notTheNewKey(keyFile, reason: "it is not the key of the relay's key epoch \(newest)")
            }
            try hold(key, epoch: newest, keyFile: keyFile)
            return .adopted(epoch: newest)
        }
        let epoch = newest + 1
        let key: BackupKey
        var made = false
        if let keyFile, FileSystem.fileExists(keyFile) {
            key = try Self.readKey(keyFile)
            // Run again after it finished: nothing more to do.
            if key.id == keys.current.id { return .adopted(epoch: keys.epoch) }
            if try SyncKeyChain.epoch(of: key, relay: relay) != nil {
                throw SyncError.notTheNewKey(keyFile, reason: "it is a key this sync has used already; name a new file, and a new key is made")
            }
        } else {
            key = try BackupKey.random()
            if let keyFile {
                try KeyFile.create(keyFile, key: key.cipherKey)
                made = true
            } else {
                try SyncKeyring(keyring).keep(key, of: relay.syncID, relay: relay.location, app: store.meta.app)
            }
        }
        do {
            try SyncKeyChain.publish(epoch: epoch, new: key, previous: keys.current, replica: replica, relay: relay)
        } catch {
            if made, let keyFile { unlink(keyFile) }  // never published: no one needs it
            throw error
        }
        try hold(key, epoch: epoch, keyFile: keyFile)
        return .rotated(epoch: epoch)
    }

    /// Before a push: a relay at a later key epoch than this replica holds takes this user's keyring's key
    /// of that epoch when it has it (a rotation on this machine); otherwise nothing is sealed under a key
    /// the others no longer read, and the error says why.
    func catchUpKey() throws {
        let newest = try SyncKeyChain.newestEpoch(of: relay)
        guard newest > keys.epoch else { return }
        let id = try SyncKeyChain.keyID(ofEpoch: newest, relay: relay)
        guard let keyring, let key = try? SyncKeyring(keyring).keys(of: relay.syncID).first(where: { $0.id == id }) else {
            throw SyncError.keyRotated(relay.location, epoch: newest, held: keys.epoch)
        }
        try hold(key, epoch: newest, keyFile: nil)
    }

    /// Records that this replica holds `key` of `epoch`, kept in `keyFile` or the keyring.
    private func hold(_ key: BackupKey, epoch: UInt32, keyFile: String?) throws {
        try store.transaction(.immediate) {
            guard var state = try SyncState.read(from: store.database) else { throw SyncError.notSynced(store.path) }
            state.keyFile = try keyFile.map(FileSystem.realPath)
            state.epoch = epoch
            state.keyID = keyFile == nil ? Hex.encode(Data(key.id)) : nil
            try state.write(to: store.database)
        }
        keys = SyncKeyChain(relay: relay, epoch: epoch, current: key, keySource: keyFile ?? SyncKeyring.source)
    }
}
