import Foundation

/// The 256-bit key that seals a backup's files (docs/backup.md#keys). It is never a store's key: by default
/// it is derived from the store's key and the store's id (so the key options that open a store restore its
/// backups, and one store key never seals two stores' backups alike); `--backup-key-file` or the keyring
/// give a backup a key of its own.
package struct BackupKey: Sendable {
    let secret: SecretBytes

    /// A passphrase-keyed store's backup key costs a guesser what the store's own PBKDF2 does; a raw key is
    /// random already, and one HMAC round is a sound key derivation for it.
    static let passphraseIterations: Int32 = 256_000

    init(secret: SecretBytes) {
        precondition(secret.count == AESGCM.keyLength)
        self.secret = secret
    }

    /// A raw `CipherKey` (a backup key file, a keyring item) taken as a backup key.
    package init(_ key: CipherKey) throws(BackupError) {
        guard key.kind == .raw, key.secret.count == AESGCM.keyLength else { throw .notABackupKey }
        self.init(secret: key.secret)
    }

    package static func random() throws -> BackupKey {
        BackupKey(secret: SecretBytes(count: AESGCM.keyLength) { SecureRandom.fill($0) })
    }

    /// The backup key of the store whose key is `storeKey` and whose id is `storeID`.
    package static func derived(from storeKey: CipherKey, storeID: String) throws(BackupError) -> BackupKey {
        let salt = Array("Vein backup key 1\0\(storeID)".utf8)
        var ok = false
        let secret = SecretBytes(count: AESGCM.keyLength) { out in
            storeKey.secret.withBytes { key in
                ok = KeyDerivation.pbkdf2(secret: key, salt: salt, iterations: storeKey.kind == .raw ? 1 : passphraseIterations, into: out)
            }
        }
        guard ok else { throw .cryptoFailed("PBKDF2 failed") }
        return BackupKey(secret: secret)
    }

    /// Eight bytes that tell keys apart without revealing one, kept in every sealed file's header: a
    /// restore with the wrong key says so before it decrypts anything.
    var id: [UInt8] {
        let label = Array("Vein backup key id 1\0".utf8)
        return Array(label.withUnsafeBytes { label in secret.withBytes { SHA256.digest([label, $0]) } }.prefix(8))
    }

    /// The key as a raw `CipherKey`, to keep in a key file or the keyring.
    package var cipherKey: CipherKey { CipherKey(kind: .raw, secret: secret) }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try secret.withBytes(body) }
}
