import Foundation

/// What `vein info` reports about a store, gathered without writing anything.
public struct StoreInfo: Sendable {
    public struct Cipher: Sendable {
        public let version: String
        public let algorithm: String
        public let pageSize: Int
        public let keyKind: String
        /// PBKDF2 iterations; nil for raw keys, which skip the KDF.
        public let kdfIterations: Int?
    }

    public let path: String
    public let realPath: String
    public let meta: StoreMeta
    public let modelRows: [(model: String, rows: Int64)]
    /// The main file plus its write-ahead log.
    public let sizeBytes: Int64
    public let keySource: KeySource
    /// Nil for a plaintext store.
    public let cipher: Cipher?
    public let sqliteVersion: String
    public let journalMode: String

    public init(_ store: Store) throws {
        let db = store.database
        path = store.path
        realPath = store.realPath
        meta = store.meta
        modelRows = try store.transaction(.deferred) { try store.rowCounts() }  // one snapshot, of the schema opened
        sizeBytes = FileSystem.fileSize(store.path) + FileSystem.fileSize(store.path + "-wal")
        keySource = store.encryption.keySource
        sqliteVersion = Database.sqliteVersion
        journalMode = (try db.scalar("PRAGMA journal_mode"))?.string ?? "unknown"
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
