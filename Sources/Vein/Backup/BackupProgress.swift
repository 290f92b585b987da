import Foundation

/// What a store remembers of its continuous backups, in `_vein_meta` (docs/backup.md#in-the-store): the
/// store's id, made by its first continuous backup, and per backup the last file it sent (generation,
/// sequence, digest, last token, the file's nonce). Deleting a backup's newest files cannot be seen from the folder alone;
/// compared with this record, it can.
package struct BackupProgress: Equatable, Sendable {
    static let storeIDKey = StoreMeta.storeIDKey
    /// Followed by the backup's id.
    static let keyPrefix = StoreMeta.backupProgressPrefix

    package let generation: UInt32
    package let sequence: UInt64
    package let digest: [UInt8]
    package let lastToken: Int64
    /// The file's nonce: it tells this file from another sealed under the same number.
    package let nonce: [UInt8]

    var text: String { "\(generation) \(sequence) \(Hex.encode(Data(digest))) \(lastToken) \(Hex.encode(Data(nonce)))" }

    init(generation: UInt32, sequence: UInt64, digest: [UInt8], lastToken: Int64, nonce: [UInt8]) {
        self.generation = generation
        self.sequence = sequence
        self.digest = digest
        self.lastToken = lastToken
        self.nonce = nonce
    }

    init?(text: String) {
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 5, let generation = UInt32(parts[0]), let sequence = UInt64(parts[1]), let digest = Hex.decode(parts[2]),
              digest.count == 32, let token = Int64(parts[3]), let nonce = Hex.decode(parts[4]), nonce.count == AESGCM.nonceLength else { return nil }
        self.init(generation: generation, sequence: sequence, digest: [UInt8](digest), lastToken: token, nonce: [UInt8](nonce))
    }

    /// The store's id, made (in a write transaction of its own) when it has none.
    static func storeID(of store: Store) throws -> String {
        let read = { try store.database.scalar(#"SELECT "value" FROM "_vein_meta" WHERE "key" = ?"#, [.text(storeIDKey)])?.string }
        if let id = try read() { return id }
        return try store.transaction(.immediate) {
            if let id = try read() { return id }
            let id = ULID.make().description
            try store.database.execute(#"INSERT INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#, [.text(storeIDKey), .text(id)])
            return id
        }
    }

    /// The record of `backupID`, nil when the store has none.
    package static func read(backupID: String, in database: Database) throws -> BackupProgress? {
        guard let text = try database.scalar(#"SELECT "value" FROM "_vein_meta" WHERE "key" = ?"#, [.text(keyPrefix + backupID)])?.string else { return nil }
        guard let progress = BackupProgress(text: text) else {
            throw StoreError.notAVeinStore(database.path, reason: "_vein_meta holds a malformed backup record \"\(text)\"")
        }
        return progress
    }

    /// Every backup the store has sent to, by backup id, in id order (`vein info`).
    package static func all(of store: Store) throws -> [(backupID: String, progress: BackupProgress)] {
        try store.transaction(.deferred) {
            try store.database.rows(#"SELECT "key", "value" FROM "_vein_meta" WHERE substr("key", 1, ?) = ? ORDER BY "key""#,
                                    [.integer(Int64(keyPrefix.utf8.count)), .text(keyPrefix)]).compactMap { row in
                guard let key = row[0].string, let text = row[1].string else { return nil }
                guard let progress = BackupProgress(text: text) else {
                    throw StoreError.notAVeinStore(store.path, reason: "_vein_meta holds a malformed backup record \"\(text)\"")
                }
                return (String(key.dropFirst(keyPrefix.count)), progress)
            }
        }
    }

    func write(backupID: String, in database: Database) throws {
        try database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#, [.text(Self.keyPrefix + backupID), .text(text)])
    }
}
