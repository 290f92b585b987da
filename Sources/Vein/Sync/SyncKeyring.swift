import Foundation

/// Sync keys in this user's keyring (docs/sync.md#the-sync-key): items of kind `sync` found by the sync's
/// id, never by a store's path (so no store lookup ever takes one for a store's key). `vein sync init`
/// without a key file keeps the key here, and a replica joined on the same machine by the same user finds
/// it with nothing given.
struct SyncKeyring {
    let keyring: any Keyring

    static let kind = "sync"
    /// How messages name where the key is.
    static let source = "this user's keyring"

    init(_ keyring: (any Keyring)?) throws {
        guard let keyring else { throw SyncError.keyringUnreachable(reason: "no keyring is configured") }
        self.keyring = keyring
    }

    /// `body`, a keyring that cannot be reached said as sync's (the store keys' message would ask for a
    /// store key option).
    private func reaching<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch KeyError.keyringUnavailable(let reason) { throw SyncError.keyringUnreachable(reason: reason) }
    }

    /// The key of the sync `syncID` whose id is `id` (any of its keys when `id` is nil: a sync never
    /// rotated has one); `SyncError.noSyncKey` when the keyring holds none.
    func key(of syncID: String, id: [UInt8]? = nil) throws -> BackupKey {
        guard let key = try keys(of: syncID).first(where: { id == nil || $0.id == id }) else { throw SyncError.noSyncKey(sync: syncID) }
        return key
    }

    /// Every key the keyring holds of the sync `syncID` (one per key epoch it was given).
    func keys(of syncID: String) throws -> [BackupKey] {
        let items = try reaching { try keyring.items(matching: [KeyringAttribute.kind: Self.kind, KeyringAttribute.sync: syncID]) }
        return try items.compactMap { try $0.key.map { try BackupKey($0) } }
    }

    func keep(_ key: BackupKey, of syncID: String, relay: String, app: String) throws {
        try reaching { try keyring.store(secret: key.cipherKey, attributes: [
            KeyringAttribute.kind: Self.kind, KeyringAttribute.sync: syncID, KeyringAttribute.keyID: Hex.encode(Data(key.id)),
            KeyringAttribute.state: KeyState.current.rawValue, KeyringAttribute.app: app,
        ], label: "Vein sync key for \(relay)") }
    }

    func forget(_ syncID: String) {
        _ = try? keyring.delete(matching: [KeyringAttribute.kind: Self.kind, KeyringAttribute.sync: syncID])
    }
}
