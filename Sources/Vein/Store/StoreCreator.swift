import CSQLCipher
import Foundation

/// Creates new stores (docs/store-format.md). A store appears complete or not at all: it is built under a temporary
/// name in the target directory, synced, and linked into place in one step; a failure removes the
/// temporary file and any key that was made for it.
public enum StoreCreator {
    public enum Protection: Sendable {
        /// No encryption (`--plaintext`).
        case plaintext
        /// Encrypted with the key from `KeyOptions`: an explicit source, or a new random key kept in the
        /// keyring. A `--key-file` that does not exist yet receives a new random key.
        case encrypted(KeyOptions)
        /// A key already in hand (a backup under its store's key), opened later through `source`; when
        /// `keyring` is given the key is also kept there under the new store's path, and with `backupOf` (the
        /// real path of the store it copies) a `BackupRecord` says so.
        case existingKey(CipherKey, source: KeySource, keyring: (any Keyring)?, app: String, backupOf: String? = nil)
    }

    public struct Result: Sendable {
        public let path: String
        public let realPath: String
        public let encryption: Store.Encryption
        /// Whether a new random key was made (and where it went: `encryption.keySource`).
        public let generatedKey: Bool
    }

    /// Names of stores being made: `.NAME.creating-ULID` beside NAME.
    static let temporaryTag = StagedFile.Tag.creating.rawValue

    /// Creates the store with file `mode` (before the umask): SQLite's usual 0644, or 0600 for a plaintext
    /// copy of an encrypted store, which only its owner should read. `guarding`: the files the command reads
    /// (a copy's source store and its key file), which neither the store, the files SQLite keeps beside it,
    /// nor a new key file may write over.
    /// `keepsChangeLog`: the store records every commit in its change log (docs/history.md).
    public static func create(at path: String, manifest: SchemaManifest, protection: Protection, mode: mode_t = 0o644,
                              keepsChangeLog: Bool = false, now: Date = Date(),
                              populate: ((Store) throws -> Void)? = nil) throws -> Result {
        try create(at: path, manifest: manifest, protection: protection, mode: mode, keepsChangeLog: keepsChangeLog, now: now,
                   guarding: WriteGuard(), populate: populate)
    }

    package static func create(at path: String, manifest: SchemaManifest, protection: Protection, mode: mode_t = 0o644,
                               keepsChangeLog: Bool = false, now: Date = Date(), guarding: WriteGuard,
                               populate: ((Store) throws -> Void)? = nil) throws -> Result {
        // Before the existence check: a path that is the source store itself says so, not just "exists".
        try guarding.check(path, writing: .database)
        guard !FileSystem.fileExists(path) else { throw StoreError.alreadyExists(path) }
        let realPath: String
        do { realPath = try FileSystem.realPath(path) } catch {
            throw StoreError.cannotCreate(path, reason: "its directory does not exist")
        }
        // Two creates of one path must not interleave: the loser would otherwise undo (delete) the key
        // the winner's store needs. Held from the existence check to the link into place.
        let directoryLock = try FileSystem.lockDirectory(containing: realPath)
        defer { directoryLock.unlock() }
        guard !FileSystem.fileExists(path) else { throw StoreError.alreadyExists(path) }

        // 1. The key, stored where it will be found again, before the store exists.
        var undo: [() -> Void] = []
        let key: CipherKey?
        let encryption: Store.Encryption
        var generated = false
        switch protection {
        case .plaintext:
            key = nil
            encryption = .plaintext
        case .encrypted(let options):
            // A new key file takes none of the names of the store it opens, nor any file the command reads.
            var keyGuard = guarding
            keyGuard.protectDatabase(path, name: path, new: true)
            let made = try makeKey(options, app: manifest.app, realPath: realPath, guarding: keyGuard, undo: &undo)
            key = made.key
            generated = made.generated
            encryption = .encrypted(kind: made.key.kindDescription, source: made.source)
        case .existingKey(let given, let source, let keyring, let app, let backupOf):
            if let keyring {
                if try keyring.lookup(storePath: realPath, state: .current) != nil {
                    throw StoreError.cannotCreate(realPath, reason: "the keyring already holds a key for this path; remove it first (secret-tool clear store '\(realPath)')")
                }
                try keyring.store(key: given, app: app, storePath: realPath, state: .current)
                undo.append { _ = try? keyring.remove(storePath: realPath, state: .current) }
                if let backupOf {
                    do {
                        try keyring.recordBackup(of: backupOf, app: app, backup: realPath, key: given, at: now)
                    } catch {
                        for step in undo.reversed() { step() }
                        throw error
                    }
                    undo.append { keyring.forgetBackupRecord(of: backupOf, backup: realPath) }
                }
            }
            key = given
            encryption = .encrypted(kind: given.kindDescription, source: source)
        }

        // 2. The store, under a temporary name, then linked into place.
        let staged: StagedFile
        do {
            // Under the directory lock no other store is being created here: any such temporary is a leftover
            // (a backup killed last night under another name too).
            StagedFile.removeLeftovers(of: realPath, tag: Self.temporaryTag)
            StagedFile.removeLeftovers(in: FileSystem.splitPath(realPath).directory, tag: Self.temporaryTag)
            staged = try StagedFile(target: realPath, tag: Self.temporaryTag, mode: mode, placement: .create)
        } catch {
            for step in undo.reversed() { step() }
            throw error
        }
        do {
            try build(staged.temporary, reportedAs: path, manifest: manifest, key: key, keepsChangeLog: keepsChangeLog, now: now)
            if let populate {
                // Filled (an import) while it still has its temporary name: the store appears with its
                // data, or not at all.
                let store = try Store.open(staged.temporary, realPath: realPath, key: key, encryption: encryption, mode: .readWrite)
                try populate(store)
                try store.database.closeCheckpointed()
            }
            try staged.place()
        } catch {
            staged.discard()
            for step in undo.reversed() { step() }
            if case FileError.alreadyExists = error { throw StoreError.alreadyExists(path) }
            throw error
        }
        do {
            try staged.syncDirectory()
        } catch {
            // Not durable: withdrawn while the directory lock still keeps anyone else from using it.
            _ = FileCalls.unlink(realPath)
            for step in undo.reversed() { step() }
            throw error
        }
        return Result(path: path, realPath: realPath, encryption: encryption, generatedKey: generated)
    }

    private static func makeKey(_ options: KeyOptions, app: String, realPath: String, guarding: WriteGuard,
                                undo: inout [() -> Void]) throws -> (key: CipherKey, source: KeySource, generated: Bool) {
        if let keyFile = options.keyFile, !FileSystem.fileExists(keyFile) {
            try guarding.check(keyFile)
            let key = try CipherKey.random()
            try KeyFile.create(keyFile, key: key)
            undo.append { _ = FileCalls.unlink(keyFile) }
            return (key, .keyFile(keyFile), true)
        }
        if let (key, source) = try options.explicitKey(confirmPassphrase: true) {
            try KeyError.attributing(to: source) { try key.checkStrengthForNewStore(allowWeak: options.allowWeakPassphrase) }
            return (key, source, false)
        }
        guard let keyring = options.keyring else {
            throw KeyError.noKeySource(store: realPath, keyringProblem: "no keyring configured")
        }
        let key = try CipherKey.random()
        do {
            // Never replace a key the keyring already holds for this path: it may open a store that was
            // moved away and will come back.
            if try keyring.lookup(storePath: realPath, state: .current) != nil {
                throw StoreError.cannotCreate(realPath, reason: "the keyring already holds a key for this path; remove it first (secret-tool clear store '\(realPath)')")
            }
            try keyring.store(key: key, app: app, storePath: realPath, state: .current)
        } catch KeyError.keyringUnavailable(let reason) {
            throw KeyError.noKeySource(store: realPath, keyringProblem: "the Secret Service is not available: \(reason)")
        }
        undo.append { _ = try? keyring.remove(storePath: realPath, state: .current) }
        return (key, .keyring, true)
    }

    private static func build(_ temporary: String, reportedAs path: String, manifest: SchemaManifest, key: CipherKey?,
                              keepsChangeLog: Bool, now: Date) throws {
        let db: Database
        do { db = try Database(path: temporary, mode: .readWrite, key: key) } catch let error as DatabaseError
            where [SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY].contains(error.code) {
            // Only a file SQLite may not open or write is "cannot create" (exit 73); an I/O error while it
            // reads or locks the new file stays one (exit 74).
            throw StoreError.cannotCreate(path, reason: error.message)
        }
        try db.execute("PRAGMA journal_mode = WAL")
        try layOut(db, manifest: manifest, keepsChangeLog: keepsChangeLog, now: now)
        // The file must be whole on its own before it gets its name.
        try db.closeCheckpointed()
    }

    /// Creates the meta tables, the schema's tables and indexes, and the "created" history row, in one
    /// transaction: a new store on disk, or a scratch store in memory (`vein migrate check`).
    static func layOut(_ db: Database, manifest: SchemaManifest, keepsChangeLog: Bool = false, now: Date) throws {
        try db.transaction {
            try db.execute(StoreMeta.createTableSQL)
            try db.execute(StoreMeta.createHistorySQL)
            for statement in SchemaDDL.createStatements(for: manifest) { try db.execute(statement) }
            if keepsChangeLog { try ChangeLogSchema.create(in: db, manifest: manifest) }
            try StoreMeta(manifest: manifest, createdAt: now).write(to: db)
            try db.execute("""
                INSERT INTO \(StoreFormat.migrations) ("fromVersion", "toVersion", "checksum", "appliedAt", "durationSeconds", "toolVersion")
                VALUES (NULL, ?, ?, ?, 0, ?)
                """, [.text(manifest.version.description), .text(manifest.sha256),
                      .text(ISODate.format(now.timeIntervalSince1970)), .text(VeinVersion.current)])
        }
    }
}
