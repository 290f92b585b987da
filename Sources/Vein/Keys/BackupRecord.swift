import Foundation

/// What `vein backup` made with a store's keyring key: the backup's real path, when it was made and the
/// key's fingerprint (never the key). Kept in the keyring as an item of its own (`state=backup-record`,
/// `store` = the store's path) beside the store's key, so that `vein key forget` can name the backups a
/// retired key opens even when a backup's own keyring item is gone.
public struct BackupRecord: Sendable, Equatable {
    public let backup: String
    /// ISO 8601, UTC, to the second.
    public let created: String
    public let fingerprint: String

    /// The `state` attribute of a record item.
    static let state = "backup-record"
}

extension CipherKey {
    /// 16 hex digits that tell keys apart without revealing one: the start of SHA-256 over a fixed label and
    /// the secret. (A random raw key cannot be guessed from it; a passphrase's fingerprint could be checked
    /// against guesses, as the store itself can, by whoever reads the keyring.)
    package var fingerprint: String {
        let label = Array("Vein key fingerprint 1\0".utf8)
        let digest = label.withUnsafeBytes { label in secret.withBytes { SHA256.digest([label, $0]) } }
        return String(Hex.encode(digest).prefix(16))
    }
}

extension Keyring {
    /// Records that `backup` was made from the store at `storePath` with `key`.
    package func recordBackup(of storePath: String, app: String, backup: String, key: CipherKey, at date: Date) throws(KeyError) {
        let fingerprint = key.fingerprint
        try store(secret: .passphrase(fingerprint), attributes: [
            KeyringAttribute.app: app, KeyringAttribute.store: storePath, KeyringAttribute.state: BackupRecord.state,
            KeyringAttribute.backup: backup, KeyringAttribute.created: RetiredKey.timestamp(date), KeyringAttribute.fingerprint: fingerprint,
        ], label: "Vein backup record: \(backup) of \(storePath)")
    }

    /// The backups recorded for the store at `storePath`, oldest first.
    package func backupRecords(of storePath: String) throws(KeyError) -> [BackupRecord] {
        try items(matching: [KeyringAttribute.store: storePath, KeyringAttribute.state: BackupRecord.state]).compactMap { item in
            let a = item.attributes
            guard let backup = a[KeyringAttribute.backup], let fingerprint = a[KeyringAttribute.fingerprint] else { return nil }
            return BackupRecord(backup: backup, created: a[KeyringAttribute.created] ?? "", fingerprint: fingerprint)
        }.sorted { ($0.created, $0.backup) < ($1.created, $1.backup) }
    }

    /// Deletes the records of `backup` made from `storePath` (a backup withdrawn before it appeared).
    package func forgetBackupRecord(of storePath: String, backup: String) {
        _ = try? delete(matching: [KeyringAttribute.store: storePath, KeyringAttribute.state: BackupRecord.state, KeyringAttribute.backup: backup])
    }
}
