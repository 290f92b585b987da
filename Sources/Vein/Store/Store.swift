import CSQLCipher
import Foundation

/// An open Vein store: its connection, what `_vein_meta` says, and the schema it holds.
public final class Store {
    /// The path as the user gave it (for messages).
    public let path: String
    /// The absolute, symlink-free path (keyring items are addressed by it).
    public let realPath: String
    package let database: Database
    public let meta: StoreMeta
    public let manifest: SchemaManifest
    public let encryption: Encryption
    /// The layout of the file (`_vein_meta.formatVersion`): the current one, or the one before, read
    /// through `FormatViews` and never written.
    package var format: StoreFormat { meta.formatVersion == StoreFormat.current.version ? .current : .upgradable }

    public enum Encryption: Equatable, Sendable {
        case plaintext
        case encrypted(kind: String, source: KeySource)

        public var isEncrypted: Bool { self != .plaintext }
        public var keySource: KeySource {
            if case .encrypted(_, let source) = self { return source }
            return .none
        }
    }

    /// Opens an existing store. Plaintext stores need no key; encrypted ones take the first key source
    /// that gives one (`KeyOptions`). A wrong key fails with `StoreError.wrongKey` before anything is written.
    public static func open(_ path: String, keys: KeyOptions, mode: Database.OpenMode = .readWrite) throws -> Store {
        try open(path, keys: keys, mode: mode, upgrading: false)
    }

    /// `upgrading`: a store of the format before is opened read-write as it is, for `StoreUpgrade` alone.
    package static func open(_ path: String, keys: KeyOptions, mode: Database.OpenMode, upgrading: Bool) throws -> Store {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == EACCES { throw StoreError.permissionDenied(path) }
            throw StoreError.notFound(path)
        }
        if info.st_mode & S_IFMT == S_IFDIR { throw StoreError.notAFile(path, reason: "it is a directory") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw StoreError.notAVeinStore(path, reason: "it is not a regular file") }
        if access(path, R_OK) != 0, errno == EACCES || errno == EPERM { throw StoreError.permissionDenied(path) }
        guard info.st_size > 0 else { throw StoreError.notAVeinStore(path, reason: "it is empty") }
        let requested = mode
        let mode = try StoreAccess.openMode(path, info: info, requested: requested)
        let realPath = try FileSystem.realPath(path)
        // What a killed command left beside the store (a rotation's copy, a journal) goes with the next one.
        StagedFile.removeLeftovers(of: realPath)
        let key: CipherKey?
        let encryption: Encryption
        var missingKeyFile: KeyError?
        if try isPlaintext(path) {
            key = nil
            encryption = .plaintext
        } else {
            try refuseText(path)
            let (found, source): (CipherKey, KeySource)
            do {
                (found, source) = try keys.keyForOpening(realPath: realPath)
            } catch let error as KeyError where keys.keyFile.map({ !FileSystem.fileExists($0) }) == true {
                // A rotation to a new key file that stopped after the store changed left its key only in
                // FILE.pending: tried as the key, and the key file's own error stands if it does not open.
                guard let pending = try keys.pendingKey(realPath: realPath) else { throw error }
                (found, source) = pending
                missingKeyFile = error
            }
            key = found
            encryption = .encrypted(kind: found.kindDescription, source: source)
        }
        let store: Store
        do {
            store = try open(path, realPath: realPath, key: key, encryption: encryption, mode: mode)
        } catch StoreError.wrongKey(let reported, _) {
            if let missingKeyFile { throw missingKeyFile }
            // A rotation that replaced the file but stopped before promoting its key left the new key pending.
            guard let (pending, source) = try keys.pendingKey(realPath: realPath) else {
                throw wrongKey(reported, realPath: realPath, key: key, source: encryption.keySource, keys: keys)
            }
            do {
                store = try open(path, realPath: realPath, key: pending,
                                 encryption: .encrypted(kind: pending.kindDescription, source: source), mode: mode)
            } catch StoreError.wrongKey {
                throw wrongKey(reported, realPath: realPath, key: key, source: encryption.keySource, keys: keys)
            }
        }
        // A read-only open of a store we may write is read-write with writes refused (see StoreAccess).
        store.refusesWrites = requested == .readOnly && mode == .readWrite
        if store.format != .current && !upgrading {
            guard requested != .readWrite else {
                try? store.database.close()
                throw StoreError.needsUpgrade(path, found: store.format.version)
            }
            try FormatViews.install(on: store.database, store.manifest, from: store.format)
        }
        if store.refusesWrites { try store.database.execute("PRAGMA query_only = ON") }
        try store.recordChanges(on: store.database)
        return store
    }

    /// The error for a key that does not open the store: when it came from the keyring, what the keyring
    /// knows of why (a move out of it that stopped after the rename, a copy from before a rotation), else
    /// "wrong key".
    private static func wrongKey(_ reported: String, realPath: String, key: CipherKey?, source: KeySource, keys: KeyOptions) -> Error {
        if source == .keyring, let key, let keyring = keys.keyring,
           let explained = keyring.explainWrongKey(storePath: realPath, tried: key, at: Date()) {
            return explained
        }
        return StoreError.wrongKey(reported, source: source)
    }

    /// Opens a store whose key is already in hand (a store being created, before it has its name).
    static func open(_ path: String, realPath: String, key: CipherKey?, encryption: Encryption,
                     mode: Database.OpenMode) throws -> Store {
        let database = try connect(path, mode: mode, key: key)
        let meta = try StoreMeta.read(from: database, path: path)
        let manifest: SchemaManifest
        do {
            manifest = try ManifestParser.parse(meta.manifest, file: "\(path) (_vein_meta.manifest)")
        } catch {
            throw StoreError.notAVeinStore(path, reason: "its stored manifest is invalid: \(error)")
        }
        return Store(path: path, realPath: realPath, database: database, meta: meta, manifest: manifest,
                     encryption: encryption, key: key, connectionMode: mode)
    }

    /// How `openConnection` opens the file again; nil for a store made around a connection it cannot open
    /// again (a plan check's in-memory database).
    let connectionMode: Database.OpenMode?
    /// Opened read-only on a file it may write: every connection refuses writes (`PRAGMA query_only`).
    private(set) var refusesWrites = false

    /// A new connection to the store's file, opened as the store's own was (mode, key, refused writes): each
    /// model context works on its own connection, so contexts on different threads share no SQLite state.
    /// Nil when the store cannot be opened again (`connectionMode`).
    func openConnection() throws -> Database? {
        guard !database.isClosed else { throw StoreError.closed(path) }
        guard let connectionMode else { return nil }
        let database = try Self.connect(path, mode: connectionMode, key: key)
        if format != .current { try FormatViews.install(on: database, manifest, from: format) }
        if refusesWrites { try database.execute("PRAGMA query_only = ON") }
        try recordChanges(on: database)
        return database
    }

    /// Who the change log names as the author of this store's commits, on every connection of it
    /// (`ObjectContext.author` overrides it for one context). Nil: no author.
    package var changeAuthor: String? {
        didSet { (database.transactionObserver as? ChangeRecorder)?.author = changeAuthor }
    }

    /// The key that opened it (rotation copies the store with it); never shown.
    let key: CipherKey?

    /// The key a copy under the same key uses (`vein backup`).
    public func keyForCopies() throws -> CipherKey {
        guard let key else { throw KeyRotationError.plaintextStore(path) }
        return key
    }

    init(path: String, realPath: String, database: Database, meta: StoreMeta, manifest: SchemaManifest,
         encryption: Encryption, key: CipherKey? = nil, connectionMode: Database.OpenMode? = nil) {
        self.key = key
        self.connectionMode = connectionMode
        self.path = path
        self.realPath = realPath
        self.database = database
        self.meta = meta
        self.manifest = manifest
        self.encryption = encryption
    }

    /// Whether the file starts with SQLite's plaintext header.
    package static func isPlaintext(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError.notAVeinStore(path, reason: "it cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return Array(header) == ExistingContent.sqliteHeader
    }

    /// Whether `path` could hold a store: a non-empty regular file that is not text (plaintext SQLite, or
    /// the random bytes of an encrypted store). Says nothing about its key or its schema.
    package static func mightBeStore(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return false }
        return TextContent.of(file: path) == nil
    }

    /// Refuses a file that is text where a store is expected (arguments in the wrong order, say): it is
    /// neither plaintext SQLite nor the random bytes of an encrypted store, and no key would open it.
    package static func refuseText(_ path: String) throws(StoreError) {
        if let content = TextContent.of(file: path) { throw .textFile(path, json: content == .json) }
    }

    /// Opens the connection, turning SQLite's codes into store errors a user can act on.
    static func connect(_ path: String, mode: Database.OpenMode, key: CipherKey?) throws -> Database {
        do {
            return try Database(path: path, mode: mode, key: key)
        } catch let error as DatabaseError {
            if error.isNotADatabase {
                throw key == nil ? StoreError.notAVeinStore(path, reason: "it is not a SQLite database")
                                 : StoreError.wrongKey(path)
            }
            if error.isBusy { throw StoreError.busy(path) }
            // A damaged page of a SQLite file stays a damage error (exit 65 with how to recover), not "not a store".
            if error.code == SQLITE_CORRUPT { throw error }
            // A plaintext header over something SQLite does not know ("unsupported file format"): no store.
            if key == nil, [SQLITE_ERROR, SQLITE_NOTADB].contains(error.code) {
                throw StoreError.notAVeinStore(path, reason: error.message)
            }
            throw error
        }
    }

    /// Row counts per model, in schema order.
    public func rowCounts() throws -> [(model: String, rows: Int64)] {
        try manifest.models.map { model in
            let count = try database.scalar("SELECT count(*) FROM \(SQL.quoteIdentifier(model.name))")?.int64 ?? 0
            return (model.name, count)
        }
    }
}
