import Foundation

/// `vein key forget`: deleting a store's retired keyring keys, and what they still open.
///
/// A retired key opens the copies of the store made before its rotation. Vein knows of the backups it made
/// (`BackupRecord`): each is opened by its own keyring item too, unless that item is gone or holds another
/// key; those are the backups that only the retired key opens, named before anything is deleted. Copies
/// made otherwise (cp, snapshots) are not known.
public enum RetiredKeyDeletion {
    public struct Entry: Sendable {
        public let key: RetiredKey
        /// Backups recorded with this key that no other key vein knows opens.
        public let onlyKeyOf: [BackupRecord]
        /// Backups recorded with this key that also open with their own keyring item.
        public let alsoOpenedByTheirOwnKey: [BackupRecord]
        /// The key opens the file at the store's path as it is now (a copy from before the rotation was put
        /// back there): it is never deleted.
        public let opensTheStore: Bool
    }

    /// The store's retired keyring keys and the backups each opens.
    public static func entries(storePath: String, keyring: any Keyring) throws(KeyError) -> [Entry] {
        let retired = try keyring.retiredKeys(storePath: storePath)
        guard !retired.isEmpty else { return [] }
        let records = try keyring.backupRecords(of: storePath)
        var entries: [Entry] = []
        for key in retired {
            let fingerprint = key.key?.fingerprint
            var only: [BackupRecord] = [], also: [BackupRecord] = []
            for record in records where record.fingerprint == fingerprint {
                let own = try keyring.lookup(storePath: record.backup, state: .current)
                if own?.fingerprint == record.fingerprint { also.append(record) } else { only.append(record) }
            }
            let opens = key.key.map { KeyProbe.opensStoreFile(storePath, with: $0) } ?? false
            entries.append(Entry(key: key, onlyKeyOf: only, alsoOpenedByTheirOwnKey: also, opensTheStore: opens))
        }
        return entries
    }

    /// Deletes the retired keys `entries` lists (and no other: one retired meanwhile stays) and then the backup
    /// records made with them, except a key that opens the store as it is now. Returns how many keys were
    /// deleted. The key goes first: a stop between the two leaves records of a deleted key, never a kept key
    /// without the records that say which backups only it opens.
    @discardableResult
    public static func delete(_ entries: [Entry], storePath: String, keyring: any Keyring) throws(KeyError) -> Int {
        // Items are deleted by their retirement date; one retired in the same second as a key that opens the
        // store would go with it, so it stays too.
        let kept = Set(entries.filter(\.opensTheStore).map(\.key.retiredAt))
        var deleted = 0
        for entry in entries where !kept.contains(entry.key.retiredAt) {
            deleted += try keyring.delete(matching: [KeyringAttribute.store: storePath, KeyringAttribute.state: KeyState.retired.rawValue,
                                                     KeyringAttribute.retired: entry.key.retiredAt])
            for record in entry.onlyKeyOf + entry.alsoOpenedByTheirOwnKey {
                try keyring.delete(matching: [KeyringAttribute.store: storePath, KeyringAttribute.state: BackupRecord.state,
                                              KeyringAttribute.backup: record.backup, KeyringAttribute.fingerprint: record.fingerprint])
            }
        }
        return deleted
    }
}
