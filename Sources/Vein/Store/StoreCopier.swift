import CSQLCipher
import Foundation

/// `vein encrypt`, `vein decrypt` and `vein backup` (docs/keys.md): a store copied into a new file under other
/// protection. The copy is built by `StoreCreator` under a temporary name and linked into place, so DEST is
/// complete or absent and never replaces a file; its key is stored before it appears and removed if the
/// copy fails.
///
/// Every row of every table, `_vein_meta` and `_vein_migrations` included, is copied inside one transaction
/// of the new store's connection, which reads the source through ATTACH: one read snapshot of the source,
/// so a backup taken while other processes write holds a consistent prefix of their commits. The
/// transaction is deferred: it takes the write lock of the new file only, and only a read snapshot of the
/// source (an immediate one would lock every attached file, the source too, and stop its writers for the
/// whole copy). SQLite header values the schema tables do not carry (user_version, application_id) are
/// copied too.
public enum StoreCopier {
    public struct Result: Sendable {
        public let creation: StoreCreator.Result
        public let rows: Int
        public let bytes: Int
        public let durationSeconds: Double
    }

    /// `snapshotTaken` (tests) runs inside the copy once the source's snapshot is fixed and before its rows are read.
    public static func copy(_ source: Store, to destination: String, protection: StoreCreator.Protection,
                            snapshotTaken: (() throws -> Void)? = nil) throws -> Result {
        try copy(source, to: destination, protection: protection, readingSource: snapshotTaken.map { hook in { _ in try hook() } })
    }

    /// `readingSource` runs inside the copy once the source's snapshot is fixed, with the copy's connection,
    /// on which the source is attached as `vein_source`: what it reads is of the same moment as the copy
    /// (a continuous backup's snapshot reads the log's last token so). With `keepsChangeLog` the copy
    /// starts a change log of its own. `alsoCopying` names tables beyond the store's own that the copy
    /// takes as they are, when the source has them (a sync's checkpoint takes its stamps).
    package static func copy(_ source: Store, to destination: String, protection: StoreCreator.Protection, keepsChangeLog: Bool = false,
                             alsoCopying: [String] = [], readingSource: ((Database) throws -> Void)?) throws -> Result {
        // The copy is made in the current format from the source's tables, column for column.
        guard source.format == .current else { throw StoreError.needsUpgrade(source.path, found: source.format.version) }
        let started = Date()
        var rows = 0
        // A plaintext copy of an encrypted store is for its owner's eyes only: until now the data was protected
        // (ARCHITECTURE.md I14).
        var mode: mode_t = 0o644
        if case .plaintext = protection, source.encryption.isEncrypted { mode = 0o600 }
        // DEST, what SQLite writes beside it, and a new key file never write over the source or its key file.
        let creation = try StoreCreator.create(at: destination, manifest: source.manifest, protection: protection, mode: mode,
                                               keepsChangeLog: keepsChangeLog, guarding: WriteGuard(protecting: source)) { copy in
            let db = copy.database
            // An attached database is read with the connection's default cipher settings, fixed at ATTACH.
            try db.execute("PRAGMA cipher_default_page_size = \(Database.cipherPageSize)")
            try db.attach(source.database.isImmutable ? Database.immutableURI(source.realPath) : source.realPath, as: "vein_source",
                          keyArgument: source.key?.attachArgument ?? "")
            defer { try? db.execute("DETACH DATABASE \"vein_source\"") }
            // The copy is a temporary file until StoreCreator links it into place, and thrown away on any
            // failure: no journal is needed while it is filled, and WAL would write every page twice.
            try db.execute("PRAGMA main.journal_mode = OFF")
            // Deferred: IMMEDIATE would take a write lock on every attached file, and the source may be
            // read-only (or opened immutable). The copy is a temporary file no one else writes; writers of
            // the source go on meanwhile (a read snapshot in WAL).
            try db.transaction(.deferred) {
                // The first read of the source: it fixes the snapshot, and the copy is built for the
                // schema the source was opened with.
                try source.meta.requireSchemaUnchanged(in: db, name: "vein_source", path: source.path)
                try readingSource?(db)
                // Indexes are built once after the copy, as sqlcipher_export does, not kept up row by row.
                let indexes = source.manifest.models.flatMap { model in SchemaDDL.indexes(for: model, in: source.manifest).map { (model.name, $0) } }
                for (_, index) in indexes { try db.execute("DROP INDEX main.\(SQL.quoteIdentifier(index.name))") }
                // Link tables too (since store format 2): they hold the to-many relationships.
                let linkTables = RelationshipStorage.all(in: source.manifest).compactMap { $0.isCanonical ? $0.linkTable : nil }
                // What `_vein_meta` says of one file (its replica id, its log's pruning, its backups) stays the
                // copy's own: a copy is another file, with a log and backups of its own.
                let perFile = " WHERE \"key\" NOT IN (\(StoreMeta.perFileKeys.map { SQL.quoteString($0) }.joined(separator: ", "))) AND substr(\"key\", 1, \(StoreMeta.backupProgressPrefix.utf8.count)) <> \(SQL.quoteString(StoreMeta.backupProgressPrefix))"
                // Triggers off: a copy that keeps a change log would count every row it copies as a write made
                // outside Vein (its counting triggers), and its first commit would say so.
                try db.withTriggersOff {
                    for table in ["_vein_meta", StoreFormat.current.migrationsTable] + source.manifest.models.map(\.name) + linkTables {
                        let name = SQL.quoteIdentifier(table)
                        let filter = table == "_vein_meta" ? perFile : ""
                        try db.execute("DELETE FROM main.\(name)" + filter)
                        do {
                            try db.execute("INSERT INTO main.\(name) SELECT * FROM \"vein_source\".\(name)" + filter)
                        } catch let error as DatabaseError where error.code == SQLITE_TOOBIG {
                            // Every value in the source was stored under the same length limit: one longer
                            // than it is a damaged record header, not data.
                            throw DatabaseError(extendedCode: SQLITE_CORRUPT, message: "database disk image is malformed (\(error.message))")
                        }
                        if !table.hasPrefix("_vein_") { rows += db.changes }
                    }
                }
                for (table, index) in indexes { try db.execute(index.sql(table: table)) }
                for table in alsoCopying {
                    guard let sql = try db.scalar("SELECT \"sql\" FROM \"vein_source\".sqlite_master WHERE \"type\" = 'table' AND \"name\" = ?",
                                                  [.text(table)])?.string else { continue }
                    try db.execute(sql)
                    try db.withTriggersOff { try db.execute("INSERT INTO main.\(SQL.quoteIdentifier(table)) SELECT * FROM \"vein_source\".\(SQL.quoteIdentifier(table))") }
                }
                for pragma in ["user_version", "application_id"] {
                    let value = try db.scalar("PRAGMA \"vein_source\".\(pragma)")?.int64 ?? 0
                    try db.execute("PRAGMA main.\(pragma) = \(value)")
                }
            }
            // Every store is in WAL mode (StoreCreator): checked, so a copy is never placed in another mode.
            let journal = try db.scalar("PRAGMA main.journal_mode = WAL")?.string
            guard journal == "wal" else {
                throw DatabaseError(extendedCode: SQLITE_ERROR, message: "the copy could not return to WAL mode (journal mode \(journal ?? "unknown"))")
            }
        }
        return Result(creation: creation, rows: rows, bytes: Int(FileSystem.fileSize(destination)),
                      durationSeconds: Date().timeIntervalSince(started))
    }
}
