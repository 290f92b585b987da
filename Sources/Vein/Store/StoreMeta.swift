import Foundation

/// The `_vein_meta` table: what a store says about itself (docs/store-format.md).
public struct StoreMeta: Equatable, Sendable {
    public var formatVersion: Int
    public var app: String
    public var schemaVersion: String
    /// The current schema manifest in canonical JSON.
    public var manifest: String
    public var manifestSHA256: String
    public var createdAt: String
    public var toolVersion: String

    enum Key: String, CaseIterable {
        case formatVersion, app, schemaVersion, manifest, manifestSHA256, createdAt, toolVersion
    }

    /// The store's id for its continuous backups (docs/backup.md#in-the-store), and the prefix of the key of
    /// each backup's progress record.
    static let storeIDKey = "storeID"
    static let backupProgressPrefix = "backup "
    /// Keys that describe one file rather than the store's data (its change log's replica id, pruning and purges,
    /// its backups), which a copy does not take (`StoreCopier`); with every key starting
    /// `backupProgressPrefix`.
    static let perFileKeys = [ChangeLogSchema.replicaKey, ChangeLogPruning.metaKey, ChangeLogPurge.metaKey, ChangeLogRetention.bytesKey, storeIDKey,
                              ChangeLogPruning.heldAfterKey, syncKey]
    /// The store's sync identity and progress (docs/sync.md#in-the-store): one replica's, never a copy's.
    static let syncKey = "sync"
    /// What a new replica joined from when that was a migration's barrier or a checkpoint (`SyncSnapshotNote`), until it is
    /// recorded as its sync: copied with the snapshot, so not a per-file key.
    static let syncJoinedKey = "syncJoined"
    /// The tables a synced store keeps of its sync (`SyncState`), named here so the verifier knows them.
    static let syncReplicasTable = "_vein_sync_replicas"
    static let syncStampsTable = "_vein_sync_stamps"
    static let syncShadowTable = "_vein_sync_shadow"

    static let createTableSQL = "CREATE TABLE \"_vein_meta\" (\"key\" TEXT PRIMARY KEY NOT NULL, \"value\" TEXT NOT NULL)"

    static let createHistorySQL = """
        CREATE TABLE \(StoreFormat.migrations) (
          "seq" INTEGER PRIMARY KEY,
          "fromVersion" TEXT,
          "toVersion" TEXT NOT NULL,
          "checksum" TEXT NOT NULL,
          "appliedAt" TEXT NOT NULL,
          "durationSeconds" REAL NOT NULL,
          "rowsRead" INTEGER NOT NULL DEFAULT 0,
          "rowsWritten" INTEGER NOT NULL DEFAULT 0,
          "rowsDeleted" INTEGER NOT NULL DEFAULT 0,
          "toolVersion" TEXT NOT NULL
        )
        """

    init(manifest: SchemaManifest, createdAt: Date) {
        self.formatVersion = StoreFormat.current.version
        self.app = manifest.app
        self.schemaVersion = manifest.version.description
        self.manifest = manifest.canonicalText
        self.manifestSHA256 = manifest.sha256
        self.createdAt = ISODate.format(createdAt.timeIntervalSince1970)
        self.toolVersion = VeinVersion.current
    }

    func write(to db: Database) throws {
        let values: [Key: String] = [
            .formatVersion: String(formatVersion), .app: app, .schemaVersion: schemaVersion, .manifest: manifest,
            .manifestSHA256: manifestSHA256, .createdAt: createdAt, .toolVersion: toolVersion,
        ]
        for key in Key.allCases {
            try db.execute("INSERT OR REPLACE INTO \"_vein_meta\" (\"key\", \"value\") VALUES (?, ?)",
                           [.text(key.rawValue), .text(values[key]!)])
        }
    }

    /// Reads `_vein_meta`; a missing table or key means the file is not (or no longer) a Vein store.
    static func read(from db: Database, path: String) throws -> StoreMeta {
        let hasTable = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_vein_meta'")
        guard hasTable?.int64 == 1 else { throw StoreError.notAVeinStore(path, reason: "it has no _vein_meta table") }
        var values: [String: String] = [:]
        for row in try db.rows("SELECT \"key\", \"value\" FROM \"_vein_meta\"") {
            if let k = row[0].string, let v = row[1].string { values[k] = v }
        }
        func value(_ key: Key) throws -> String {
            guard let v = values[key.rawValue] else {
                throw StoreError.notAVeinStore(path, reason: "_vein_meta has no \(key.rawValue)")
            }
            return v
        }
        let format = try value(.formatVersion)
        guard let formatVersion = Int(format) else { throw StoreError.notAVeinStore(path, reason: "bad formatVersion \(format)") }
        guard formatVersion <= StoreFormat.current.version else { throw StoreError.unsupportedFormat(path, found: format) }
        guard formatVersion >= StoreFormat.upgradable.version else { throw StoreError.obsoleteFormat(path, found: format) }
        return StoreMeta(formatVersion: formatVersion, app: try value(.app), schemaVersion: try value(.schemaVersion),
                         manifest: try value(.manifest), manifestSHA256: try value(.manifestSHA256),
                         createdAt: try value(.createdAt), toolVersion: try value(.toolVersion))
    }

    init(formatVersion: Int, app: String, schemaVersion: String, manifest: String, manifestSHA256: String,
         createdAt: String, toolVersion: String) {
        self.formatVersion = formatVersion
        self.app = app
        self.schemaVersion = schemaVersion
        self.manifest = manifest
        self.manifestSHA256 = manifestSHA256
        self.createdAt = createdAt
        self.toolVersion = toolVersion
    }
}
