import Foundation

/// The sync keys a replica reads with (docs/sync.md#rotating-the-sync-key). A rotation starts a new key
/// **epoch**: the relay gains a key file for it, holding the previous epoch's key sealed under the new
/// one, and every file sealed from then on names the new epoch (its header's generation, which the
/// seal authenticates). So a replica that holds the newest key reads everything before it, one key file
/// per epoch back, and a replica not given it reads nothing sealed after.
final class SyncKeyChain {
    let relay: SyncRelay
    /// The epoch of the key this replica holds, and the key.
    let epoch: UInt32
    let current: BackupKey
    /// Where the held key is, for messages: its file, or the keyring.
    let keySource: String
    private var older: [UInt32: BackupKey] = [:]

    init(relay: SyncRelay, epoch: UInt32, current: BackupKey, keySource: String) {
        self.relay = relay
        self.epoch = epoch
        self.current = current
        self.keySource = keySource
    }

    /// The key for a file of the relay sealed in `fileEpoch` under the key `id`.
    func key(epoch fileEpoch: UInt32, id: [UInt8], file: String) throws -> BackupKey {
        guard fileEpoch <= epoch else { throw SyncError.keyRotated(relay.location, epoch: fileEpoch, held: epoch) }
        var key = current
        var at = epoch
        while at > fileEpoch {
            if let known = older[at - 1] {
                key = known
            } else {
                key = try Self.previous(of: key, at: at, relay: relay, keySource: keySource)
                older[at - 1] = key
            }
            at -= 1
        }
        guard key.id == id else { throw SyncError.wrongKey(file: file, keySource: keySource) }
        return key
    }

    /// The newest key epoch of the relay (1 until a rotation).
    static func newestEpoch(of relay: SyncRelay) throws -> UInt32 {
        try relay.backend.keyEpochs().last ?? 1
    }

    /// The id of the key that sealed epoch `epoch`'s key file (the snapshot's, for epoch 1), as its header
    /// says: what a key given for that epoch must match. The seal is checked when the key is used.
    static func keyID(ofEpoch epoch: UInt32, relay: SyncRelay) throws -> [UInt8] {
        if epoch <= 1 { return try relay.backend.snapshotHeader().keyID }
        return try relay.backend.reading(keyEpoch: epoch) { try SealedFile.header(of: $0) }.keyID
    }

    /// The epoch whose key is `key`, among the relay's; nil when it is no key of this sync.
    static func epoch(of key: BackupKey, relay: SyncRelay) throws -> UInt32? {
        for epoch in ([1] + (try relay.backend.keyEpochs())).reversed() where try keyID(ofEpoch: epoch, relay: relay) == key.id {
            return epoch
        }
        return nil
    }

    /// Epoch `at - 1`'s key, from epoch `at`'s key file, opened with `key` (epoch `at`'s).
    static func previous(of key: BackupKey, at: UInt32, relay: SyncRelay, keySource: String) throws -> BackupKey {
        let file = relay.backend.keyEpochName(at)
        var bytes = Data()
        defer { KeyMemory.wipe(&bytes) }
        _ = try SyncSession.naming {
            try relay.backend.reading(keyEpoch: at) { path in
                try SealedFile.open(path, place: { header in
                    try relay.check(header, file: file, kind: .key, replica: header.replicaID, sequence: UInt64(at))
                    guard header.generation == at else { throw BackupError.damaged(file: file, reason: "it says it is of key epoch \(header.generation)") }
                }, key: { id in
                    guard id == key.id else { throw SyncError.wrongKey(file: file, keySource: keySource) }
                    return key
                }) { bytes.append(contentsOf: $0) }
            }
        }
        guard bytes.count == AESGCM.keyLength else { throw SyncError.damaged(file: file, reason: "it holds no key") }
        return BackupKey(secret: SecretBytes(copying: bytes))
    }

    /// Publishes epoch `epoch`'s key file: `previous` (epoch `epoch - 1`'s key) sealed under `new`.
    static func publish(epoch: UInt32, new: BackupKey, previous: BackupKey, replica: String, relay: SyncRelay) throws {
        let header = SealedHeader(kind: .key, generation: epoch, sequence: UInt64(epoch), storeID: relay.syncID, replicaID: replica,
                                  keyID: new.id, previousDigest: SyncSession.zeroDigest, lastToken: 0, lastClock: 0)
        _ = try relay.backend.writing(keyEpoch: epoch) { path in
            var payload = previous.withBytes { Array($0) }
            defer { payload.withUnsafeMutableBytes { KeyMemory.wipe($0) } }
            return try SealedFile.write(to: path, header: header, key: new, prefix: payload)
        }
    }
}
