/// Takes a sealed snapshot of a store (docs/backup.md#snapshots): a copy made under a one-time key, read in
/// one read transaction of the store, sealed whole after a prefix holding that key. No plaintext of the
/// store is ever on disk. Continuous backups and a sync's relay take them alike.
enum SnapshotSealing {
    /// Seals a snapshot of `store` into a new file at `path`, copying it first to `scratch` (removed on every
    /// path out). `header` makes the file's header from the newest commit the copy holds and the store's
    /// replica id (and may prepare the file's folder). `note`, read in the copy's snapshot of the store (attached
    /// as `vein_source`), is kept with it; `alsoCopying` names tables beyond the store's own it takes. Returns the header as written and the file's digest.
    static func seal(_ store: Store, scratch: String, to path: String, key: BackupKey, alsoCopying: [String] = [],
                     note: ((Database) throws -> String)? = nil,
                     header: (_ last: (token: Int64, clock: Int64), _ replica: String) throws -> SealedHeader) throws -> (header: SealedHeader, digest: [UInt8]) {
        FileSystem.removeDatabaseFiles(scratch)
        defer { FileSystem.removeDatabaseFiles(scratch) }
        let copyKey = try CipherKey.random()
        var last: (token: Int64, clock: Int64) = (0, 0)
        var replica = ""
        var noted: String?
        // Read in the copy's snapshot of the store. A log pruned to nothing counts its pruned token, or the
        // next pass would find the log pruned past the snapshot again.
        _ = try StoreCopier.copy(store, to: scratch, protection: .existingKey(copyKey, source: .none, keyring: nil, app: store.meta.app),
                                 alsoCopying: alsoCopying, readingSource: { db in
            last = try ChangeLogSchema.newestCommit(in: db, schema: "vein_source")
            replica = try ChangeLogSchema.replica(in: db, schema: "vein_source") ?? ""
            noted = try note?(db)
        })
        return try SealedFile.write(to: path, header: try header(last, replica), key: key,
                                    prefix: SnapshotPrefix.encode(copyKey: copyKey, sourceEncrypted: store.encryption.isEncrypted, note: noted),
                                    bodyPath: scratch)
    }
}
