import Foundation

/// What `vein info` reports about a store, gathered without writing anything.
package struct StoreInfo: Sendable {
    package struct Cipher: Sendable {
        package let version: String
        package let algorithm: String
        package let pageSize: Int
        package let keyKind: String
        /// PBKDF2 iterations; nil for raw keys, which skip the KDF.
        package let kdfIterations: Int?
    }

    package let path: String
    package let realPath: String
    package let meta: StoreMeta
    package let modelRows: [(model: String, rows: Int64)]
    /// The main file plus its write-ahead log.
    package let sizeBytes: Int64
    package let keySource: KeySource
    /// Nil for a plaintext store.
    package let cipher: Cipher?
    package let sqliteVersion: String
    package let journalMode: String
    /// The change log, when the store keeps one (docs/history.md): how many transactions it holds, the
    /// last token, and the last one pruned.
    package let changeLog: (transactions: Int64, lastToken: Int64?, prunedThrough: Int64?)?

    package init(_ store: Store) throws {
        let db = store.database
        path = store.path
        realPath = store.realPath
        meta = store.meta
        modelRows = try store.transaction(.deferred) { try store.rowCounts() }  // one snapshot, of the schema opened
        sizeBytes = FileSystem.fileSize(store.path) + FileSystem.fileSize(store.path + "-wal")
        keySource = store.encryption.keySource
        sqliteVersion = Database.sqliteVersion
        journalMode = (try db.scalar("PRAGMA journal_mode"))?.string ?? "unknown"
        changeLog = try store.transaction(.deferred) {
            guard try ChangeLogSchema.isKept(in: db) else { return nil }
            let row = try db.rows(#"SELECT count(*), max("token") FROM "\#(ChangeLogSchema.transactions)""#).first
            return (row?[0].int64 ?? 0, row?[1].int64, try ChangeLogPruning.prunedThrough(in: db)?.token)
        }
        if case .encrypted(let kind, _) = store.encryption {
            func pragma(_ name: String) -> String? {
                guard let value = try? db.scalar("PRAGMA \(name)") else { return nil }
                switch value {
                case .integer(let i): return String(i)
                case .text(let t): return t
                default: return nil
                }
            }
            cipher = Cipher(
                version: db.cipherVersion ?? "unknown",
                algorithm: pragma("cipher") ?? "aes-256-cbc",
                pageSize: pragma("cipher_page_size").flatMap { Int($0) } ?? Database.cipherPageSize,
                keyKind: kind,
                kdfIterations: kind.hasPrefix("passphrase") ? pragma("kdf_iter").flatMap { Int($0) } : nil)
        } else {
            cipher = nil
        }
    }
}
