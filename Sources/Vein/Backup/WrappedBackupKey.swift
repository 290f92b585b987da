import Foundation

/// A backup key sealed under a passphrase (`vein backup export-key`, docs/backup.md#keys), for a restore
/// on a machine that has nothing else: the key, AES-256-GCM-sealed under PBKDF2-HMAC-SHA256 of the
/// passphrase, in a text file whose other lines (the backup, the key's id, the salt) are authenticated too.
///
///     vein-backup-key 1
///     backup <backup id>
///     key-id <hex>
///     salt <hex>
///     nonce <hex>
///     sealed <hex of the sealed key and its tag>
enum WrappedBackupKey {
    static let firstLine = "vein-backup-key 1"
    static let iterations: Int32 = 256_000

    static func isWrapped(_ text: String) -> Bool { text.hasPrefix(firstLine + "\n") }

    static func wrap(_ key: BackupKey, backupID: String, passphrase: String) throws -> String {
        let salt = [UInt8](try SecureRandom.bytes(16)), nonce = [UInt8](try SecureRandom.bytes(AESGCM.nonceLength))
        let head = "\(firstLine)\nbackup \(backupID)\nkey-id \(Hex.encode(Data(key.id)))\nsalt \(Hex.encode(Data(salt)))\nnonce \(Hex.encode(Data(nonce)))\n"
        let wrapping = try wrappingKey(passphrase: passphrase, salt: salt)
        let cipher = try wrapping.withBytes { k throws(BackupError) in try AESGCM(sealing: true, key: k, nonce: nonce, associatedData: Array(head.utf8)) }
        var sealed: [UInt8] = []
        try key.withBytes { try cipher.update($0, into: &sealed) }
        sealed += try cipher.finish()
        return head + "sealed \(Hex.encode(Data(sealed)))\n"
    }

    /// The key in `text` (a file's, named `path`), opened with `passphrase`.
    static func unwrap(_ text: String, path: String, passphrase: String) throws -> (key: BackupKey, backupID: String) {
        let lines = text.split(separator: "\n").map(String.init)
        func field(_ index: Int, _ name: String) throws -> String {
            guard lines.count == 6, lines[index].hasPrefix(name + " ") else { throw BackupError.notABackupKey }
            return String(lines[index].dropFirst(name.count + 1))
        }
        let backupID = try field(1, "backup")
        guard let salt = Hex.decode(try field(3, "salt")), let nonce = Hex.decode(try field(4, "nonce")), nonce.count == AESGCM.nonceLength,
              let sealed = Hex.decode(try field(5, "sealed")), sealed.count == AESGCM.keyLength + AESGCM.tagLength else { throw BackupError.notABackupKey }
        let head = lines[0..<5].joined(separator: "\n") + "\n"
        let wrapping = try wrappingKey(passphrase: passphrase, salt: [UInt8](salt))
        let cipher = try wrapping.withBytes { k throws(BackupError) in
            try AESGCM(sealing: false, key: k, nonce: [UInt8](nonce), associatedData: Array(head.utf8))
        }
        var opened: [UInt8] = []
        try sealed.prefix(AESGCM.keyLength).withUnsafeBytes { try cipher.update($0, into: &opened) }
        defer { opened.withUnsafeMutableBytes { KeyMemory.wipe($0) } }
        guard cipher.matches(tag: [UInt8](sealed.suffix(AESGCM.tagLength))) else { throw BackupError.wrongPassphrase(path) }
        return (BackupKey(secret: SecretBytes(copying: opened)), backupID)
    }

    private static func wrappingKey(passphrase: String, salt: [UInt8]) throws(BackupError) -> BackupKey {
        var ok = false
        let secret = SecretBytes(count: AESGCM.keyLength) { out in
            Array(passphrase.utf8).withUnsafeBytes { ok = KeyDerivation.pbkdf2(secret: $0, salt: salt, iterations: iterations, into: out) }
        }
        guard ok else { throw .cryptoFailed("PBKDF2 failed") }
        return BackupKey(secret: secret)
    }
}
