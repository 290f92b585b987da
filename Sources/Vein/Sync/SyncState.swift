import Foundation

/// What a synced store keeps of its sync (docs/sync.md#in-the-store), all of it about this one file, so a
/// copy of the store takes none of it (`StoreMeta.perFileKeys`, and tables the copier does not know):
///
/// - `_vein_meta.sync`: the sync's id, the relay, where the sync key is (a file, or `"keyring": true`), and this replica's progress (the
///   last token sent, and the last it stamped);
/// - `_vein_meta.historyHeldAfter`: the last token sent, below which the log may be pruned;
/// - `_vein_sync_replicas`: per replica, the last segment applied (this one's: sent) and its digest, so a
///   relay that goes back is noticed;
/// - `_vein_sync_stamps`: per row, link and field, the clock time and replica of the write that holds it,
///   which a merged change must pass to replace it;
/// - `_vein_sync_shadow`: what a unique-value conflict keeps out of the store's tables (`SyncShadow`).
struct SyncState: Equatable {
    var syncID: String
    var relay: String
    /// The sync key's file; nil when the key is in this user's keyring (`SyncKeyring`).
    var keyFile: String?
    /// The key epoch of the key it holds (`SyncKeyChain`): 1 until a rotation reaches it.
    var epoch: UInt32 = SyncRelay.firstEpoch
    /// The held key's id, in hex, when it is in the keyring: which of the sync's items is this epoch's.
    var keyID: String?
    /// The migration barrier this store starts from (`SyncSnapshotNote`): 0 until its first migration.
    var migration: UInt32 = 0
    /// The last of this store's own transactions sent to the relay.
    var sentThrough: Int64
    /// The last of this store's own transactions whose writes are stamped.
    var stampedThrough: Int64

    static let replicas = StoreMeta.syncReplicasTable
    static let stamps = StoreMeta.syncStampsTable

    static let createTables = [
        #"CREATE TABLE IF NOT EXISTS "\#(replicas)" ("replica" TEXT PRIMARY KEY NOT NULL, "sequence" INTEGER NOT NULL, "digest" BLOB NOT NULL)"#,
        #"CREATE TABLE IF NOT EXISTS "\#(stamps)" ("tableName" TEXT NOT NULL, "key" TEXT NOT NULL, "column" TEXT NOT NULL, "#
            + #""clock" INTEGER NOT NULL, "replica" TEXT NOT NULL, PRIMARY KEY ("tableName", "key", "column")) WITHOUT ROWID"#,
        SyncShadow.createTable,
    ]

    /// The state of the store open on `database` (or attached to it as `schema`); nil when it is not synced.
    static func read(from database: Database, schema: String = "main") throws -> SyncState? {
        guard let text = try database.scalar(#"SELECT "value" FROM "\#(schema)"."_vein_meta" WHERE "key" = ?"#, [.text(StoreMeta.syncKey)])?.string else {
            return nil
        }
        guard case .object(let o)? = try? JSONParser.parse(text), let sync = o["sync"]?.stringValue, let relay = o["relay"]?.stringValue,
              o["keyFile"]?.stringValue != nil || o["keyring"] == .bool(true), let sent = o["sentThrough"]?.intValue, let stamped = o["stampedThrough"]?.intValue else {
            throw ChangeLogError.damaged("_vein_meta.\(StoreMeta.syncKey) is not a sync record Vein wrote")
        }
        let epoch = o["epoch"]?.intValue.flatMap { UInt32(exactly: $0) } ?? SyncRelay.firstEpoch
        let migration = o["migration"]?.intValue.flatMap { UInt32(exactly: $0) } ?? 0
        return SyncState(syncID: sync, relay: relay, keyFile: o["keyFile"]?.stringValue, epoch: epoch, keyID: o["keyID"]?.stringValue,
                         migration: migration, sentThrough: sent, stampedThrough: stamped)
    }

    /// Writes the state, and the log's hold, in the caller's write transaction.
    func write(to database: Database) throws {
        var object = JSONObject([("sync", .string(syncID)), ("relay", .string(relay)), keyFile.map { ("keyFile", .string($0)) } ?? ("keyring", .bool(true)),
                                 ("sentThrough", .int(sentThrough)), ("stampedThrough", .int(stampedThrough))])
        if epoch != SyncRelay.firstEpoch { object["epoch"] = .int(Int64(epoch)) }
        if let keyID { object["keyID"] = .string(keyID) }
        if migration != 0 { object["migration"] = .int(Int64(migration)) }
        try database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?), (?, ?)"#,
                             [.text(StoreMeta.syncKey), .text(JSONWriter.string(.object(object))),
                              .text(ChangeLogPruning.heldAfterKey), .text(String(min(sentThrough, stampedThrough)))])
    }

    /// The last segment applied from each replica (this one's own: the last sent), with its digest; `schema`
    /// names an attached database.
    static func progress(in database: Database, schema: String = "main") throws -> [String: (sequence: UInt64, digest: [UInt8])] {
        var result: [String: (UInt64, [UInt8])] = [:]
        for row in try database.rows(#"SELECT "replica", "sequence", "digest" FROM "\#(schema)"."\#(replicas)""#) {
            guard let replica = row[0].string, let sequence = row[1].int64, case .blob(let digest) = row[2] else { continue }
            result[replica] = (UInt64(sequence), [UInt8](digest))
        }
        return result
    }

    static func recordProgress(of replica: String, sequence: UInt64, digest: [UInt8], in database: Database) throws {
        try database.execute(#"INSERT OR REPLACE INTO "\#(replicas)" ("replica", "sequence", "digest") VALUES (?, ?, ?)"#,
                             [.text(replica), .integer(Int64(sequence)), .blob(Data(digest))])
    }
}
