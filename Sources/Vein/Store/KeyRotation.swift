import Foundation

/// `vein key rotate` (docs/keys.md): a store re-encrypted under a new key, crash-safe by construction.
///
/// Why not `PRAGMA rekey`: SQLCipher 3.4.1 refuses it on WAL databases, and rewriting pages in place would
/// leave a half-old, half-new file after a crash. Instead the store is copied with `sqlcipher_export` into
/// a new file under the new key, synced, and renamed over the old one: rename(2) is atomic, so the path
/// always names a whole store under the old key or a whole store under the new one.
///
/// Invariant, at every instant (ARCHITECTURE.md I9): the key that opens the file at the path can be found. The new key is
/// recorded as *pending* in its key source before the file changes (a key file's `FILE.pending`, the
/// keyring's `state=pending` item), `Store.open` tries the pending key when the current one fails, and the
/// pending key is promoted to current only after the rename.
public enum KeyRotation {
    /// Where the new key is kept.
    public enum Destination: Sendable {
        /// The key file or keyring item that holds the current key.
        case sameSource
        case keyring
        /// A key file, written 0600; an existing file is replaced only with `force` (or when it is the
        /// store's current key file).
        case keyFile(String, force: Bool)
        /// A passphrase the user gave (asked twice by the CLI); nothing is written anywhere.
        case passphrase(String)
    }

    public struct Result: Sendable {
        public let destination: KeySource
        public let bytes: Int
        public let durationSeconds: Double
    }

    /// Points where a test process may be told to stop (crash tests kill it there or anywhere).
    public enum Step: String, Sendable { case pendingRecorded, exported, renamed, promoted }

    public static func rotate(_ path: String, keys: KeyOptions, to destination: Destination,
                              after: (@Sendable (Step) -> Void)? = nil) throws -> Result {
        let started = Date()
        // Nobody else may have the store open: after the rename they would go on writing to the old file.
        // Checked before this process opens it (see otherProcessHasSQLiteOpen).
        if try FileSystem.otherProcessHasSQLiteOpen((try? FileSystem.realPath(path)) ?? path) { throw StoreError.busy(path) }
        let store = try Store.open(path, keys: keys)
        guard case .encrypted(_, let source) = store.encryption else {
            throw KeyRotationError.plaintextStore(path)
        }
        let realPath = store.realPath
        guard let oldKey = store.key else { throw KeyRotationError.plaintextStore(path) }
        // A pending key from an interrupted rotation is settled first: promoted when it is the key that
        // opens the file (the rename happened), dropped when it is not. Only then may a new pending key
        // take its place; overwriting it while it alone opens the file would lose the store.
        try finishInterruptedRotation(keys, realPath: realPath, openedWith: oldKey, from: source, app: store.meta.app)

        // Where the new key goes, and the key itself.
        let newKey: CipherKey
        let home: KeyHome
        switch destination {
        case .passphrase(let text):
            // Read as every passphrase is read (trimmed; 64 hex digits are a raw key), so that the same
            // text typed later opens the store.
            newKey = try KeyError.attributing(to: .passphrasePrompt) {
                let key = try CipherKey(text: text)
                try key.checkStrengthForNewStore(allowWeak: keys.allowWeakPassphrase)
                return key
            }
            home = .none
        case .keyring:
            newKey = try CipherKey.random()
            guard let keyring = keys.keyring else { throw KeyError.noKeySource(store: realPath, keyringProblem: "no keyring configured") }
            home = .keyring(keyring, app: store.meta.app)
        case .keyFile(let file, let force):
            // Neither the key file nor its pending key may be the store or a file SQLite keeps beside it; an
            // existing key file is replaced only with `force`, whatever it holds.
            var guarding = WriteGuard()
            guarding.protectStore(store)
            for path in [file, KeyFile.pendingPath(for: file)] { try guarding.check(path, force: true) }
            newKey = try CipherKey.random()
            if FileSystem.fileExists(file) && !force && source != .keyFile(file) { throw KeyError.keyFileExists(path: file) }
            home = .keyFile(file)
        case .sameSource:
            newKey = try CipherKey.random()
            switch source {
            case .keyFile(let file): home = .keyFile(file.hasSuffix(".pending") ? String(file.dropLast(8)) : file)
            case .keyring:
                guard let keyring = keys.keyring else { throw KeyError.noKeySource(store: realPath, keyringProblem: "no keyring configured") }
                home = .keyring(keyring, app: store.meta.app)
            default: throw KeyRotationError.sourceNotWritable(source)
            }
        }

        let database = store.database
        database.setBusyTimeout(milliseconds: 0)
        // Every frame in the file: the WAL at this path must hold nothing when the new file takes the path.
        try database.checkpointCompletely()
        // Held until the new file is in place: no write can land in the old file after the copy.
        try database.execute("BEGIN IMMEDIATE")
        defer { try? database.execute("ROLLBACK") }

        home.removeLeftovers()
        // 0600 while it is written; it takes the store's mode, owner and group when it replaces it.
        let staged = try StagedFile(target: realPath, tag: Self.temporaryTag, mode: 0o600, placement: .replace)
        do {
            try home.record(newKey, state: .pending, realPath: realPath)
        } catch {
            // Recording may fail after the pending key is in place (its directory's sync): a key that opens
            // nothing must not stay behind.
            staged.discard()
            home.forgetPending(realPath: realPath)
            throw error
        }
        // A key leaving the keyring is marked as moving there before the store changes (see KeyringMove).
        let leaving = source == .keyring && home.source != .keyring ? keys.keyring : nil
        do {
            try leaving?.markMoving(storePath: realPath, holding: oldKey, to: home.source ?? .passphrasePrompt)
        } catch {
            staged.discard()
            home.forgetPending(realPath: realPath)
            throw error
        }
        after?(.pendingRecorded)
        do {
            try export(realPath, oldKey: oldKey, into: staged.temporary, newKey: newKey)
            after?(.exported)
            try staged.place()
        } catch {
            staged.discard()
            home.forgetPending(realPath: realPath)
            leaving?.unmarkMoving(storePath: realPath)
            throw error
        }
        // From here the path is the new file: the pending key opens it and must never be dropped. A failure
        // says so, lest that key be taken for a leftover of a rotation that failed.
        do {
            try staged.syncDirectory()
            after?(.renamed)
            // The old file's connection goes last: as the last one it removes the (empty) -wal and -shm names.
            try? database.execute("ROLLBACK")
            try database.close()
            try home.record(newKey, state: .current, realPath: realPath)
        } catch {
            throw KeyRotationError.notFinished(path, pendingIn: home.pendingSource, reason: "\(error)")
        }
        home.forgetPending(realPath: realPath)
        do {
            try retire(oldKey, in: source, movedTo: home, keys: keys, realPath: realPath)
        } catch {
            throw KeyRotationError.oldKeyNotRetired(source, newHome: home.source ?? .passphrasePrompt, reason: "\(error)")
        }
        after?(.promoted)
        var info = stat()
        stat(realPath, &info)
        return Result(destination: home.source ?? .passphrasePrompt, bytes: Int(info.st_size),
                      durationSeconds: Date().timeIntervalSince(started))
    }

    private static func finishInterruptedRotation(_ keys: KeyOptions, realPath: String, openedWith key: CipherKey, from source: KeySource,
                                                  app: String) throws {
        // A move out of the keyring that stopped before the rename left the mark on a key that still opens.
        if source == .keyring { keys.keyring?.unmarkMoving(storePath: realPath) }
        guard let (pending, _) = try keys.pendingKey(realPath: realPath) else { return }
        let home: KeyHome
        if let file = keys.keyFile {
            home = .keyFile(file)
        } else if let keyring = keys.keyring {
            home = .keyring(keyring, app: app)
        } else {
            return
        }
        if pending == key { try home.record(key, state: .current, realPath: realPath) }
        home.forgetPending(realPath: realPath)
    }

    /// A key moved to another source is marked retired where it was, after the rename (until then it alone
    /// opened the store): a keyring item gets `state=retired`, a key file is renamed `FILE.retired-DATE`.
    /// Only when that source still holds `oldKey`. A key replaced in place was retired by `KeyHome.record`.
    private static func retire(_ oldKey: CipherKey, in source: KeySource, movedTo home: KeyHome, keys: KeyOptions, realPath: String) throws {
        switch source {
        case .keyring:
            guard let keyring = keys.keyring, home.source != .keyring else { return }
            try keyring.retireCurrent(storePath: realPath, holding: oldKey, movedTo: home.source ?? .passphrasePrompt, at: Date())
        case .keyFile(let file):
            let path = file.hasSuffix(".pending") ? String(file.dropLast(8)) : file
            if case .keyFile(let target) = home, (try? FileSystem.realPath(target)) == (try? FileSystem.realPath(path)) { return }
            guard (try? KeyFile.read(path)) == oldKey else { return }
            try KeyFile.retire(path, at: Date(), keepingName: false)
        default:
            return
        }
    }

    /// Names of copies being made: `.NAME.rotating-ULID` beside the store.
    static let temporaryTag = StagedFile.Tag.rotating.rawValue

    /// A copy of the store under `newKey`: every table, index and row through `sqlcipher_export`, in WAL
    /// mode like the original, checked (key, tables, row counts) and synced before it may replace anything.
    static func export(_ path: String, oldKey: CipherKey, into temporary: String, newKey: CipherKey?) throws {
        // `temporary` exists (empty): an attached database is opened without CREATE.
        // Read-write: an attached database opens with the flags of the connection, and the copy is written.
        let source = try Database(path: path, mode: .readWrite, key: oldKey)
        try source.attach(temporary, as: "vein_target", keyArgument: newKey?.attachArgument ?? "")
        if newKey != nil { try source.execute("PRAGMA \"vein_target\".cipher_page_size = \(Database.cipherPageSize)") }
        try source.sqlcipherExport(into: "vein_target")
        try source.execute("PRAGMA \"vein_target\".journal_mode = WAL")
        try source.execute("DETACH DATABASE \"vein_target\"")
        try source.close()
        // The copy must open with the new key and hold the same tables with the same numbers of rows before
        // it may replace anything. (A full quick_check would read the whole file once more: a quarter of a
        // rotation's time, for a file SQLite has just written and will fsync.)
        let copy = try Database(path: temporary, key: newKey)
        let original = try Database(path: path, mode: .readOnly, key: oldKey)
        let tables = try original.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
        let copied = try copy.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
        guard tables == copied else { throw StoreError.cannotCreate(temporary, reason: "the copy does not hold the same tables") }
        for table in tables where !table.hasPrefix("sqlite_") {
            let count = "SELECT count(*) FROM \(SQL.quoteIdentifier(table))"
            guard try copy.scalar(count) == original.scalar(count) else {
                throw StoreError.cannotCreate(temporary, reason: "the copy of \(table) does not hold the same number of rows")
            }
        }
        try copy.closeCheckpointed()
        try original.close()
    }
}

public enum KeyRotationError: Error, Equatable, Sendable {
    case plaintextStore(String)
    /// The key came from somewhere vein cannot write (an environment variable, a typed passphrase).
    case sourceNotWritable(KeySource)
    /// The store was replaced by its copy under the new key, then a later step failed (making the rename
    /// durable, storing the key as current): the new key stays pending where it is kept (nil: a
    /// passphrase, kept nowhere), and it opens the store.
    case notFinished(String, pendingIn: KeySource?, reason: String)
    /// The store was rotated and opens with the key in `newHome`, but the old key could not be marked retired
    /// in `source` (which then still presents it as the store's key).
    case oldKeyNotRetired(KeySource, newHome: KeySource, reason: String)
}

extension KeyRotationError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .plaintextStore(let path): return "\(path) is not encrypted; there is no key to rotate"
        case .sourceNotWritable(let source): return "the key comes from the \(source), where vein cannot write a new one"
        case .notFinished(let path, let pending?, let reason):
            return "\(path) is encrypted with its new key, but the rotation did not finish (\(reason)); the new key stays pending in the \(pending), and it opens the store"
        case .notFinished(let path, nil, let reason):
            return "\(path) is encrypted with the new passphrase, but the rotation did not finish (\(reason))"
        case .oldKeyNotRetired(let source, let home, let reason):
            let place = home == .passphrasePrompt ? "the new passphrase" : "the new key in the \(home)"
            return "the store was rotated and opens with \(place), but the old key in the \(source) could not be marked retired: \(reason)"
        }
    }
}

/// Where a new key is written: a key file, the keyring, or nowhere (a passphrase).
private enum KeyHome {
    case keyFile(String)
    case keyring(any Keyring, app: String)
    case none

    var source: KeySource? {
        switch self {
        case .keyFile(let path): return .keyFile(path)
        case .keyring: return .keyring
        case .none: return nil
        }
    }

    /// Where the pending key is kept.
    var pendingSource: KeySource? {
        switch self {
        case .keyFile(let path): return .keyFile(KeyFile.pendingPath(for: path))
        case .keyring: return .keyring
        case .none: return nil
        }
    }

    /// Records `key` as the pending or the current key. A current key it replaces is retired, never lost: a
    /// key file's as `FILE.retired-DATE`, a keyring item as `state=retired`.
    func record(_ key: CipherKey, state: KeyState, realPath: String) throws {
        switch self {
        case .keyFile(let path):
            switch state {
            case .pending: try KeyFile.replace(KeyFile.pendingPath(for: path), key: key)
            default:
                if FileSystem.fileExists(path), (try? KeyFile.read(path)) != key { try KeyFile.retire(path, at: Date(), keepingName: true) }
                try KeyFile.replace(path, key: key)
            }
        case .keyring(let keyring, let app):
            if state == .current, let old = try keyring.lookup(storePath: realPath, state: .current), old != key {
                guard try keyring.retireCurrent(storePath: realPath, holding: old, movedTo: .keyring, at: Date()) else {
                    throw KeyError.keyringFailed("the keyring's current key for \(realPath) could not be kept as a retired key")
                }
            } else {
                _ = try keyring.remove(storePath: realPath, state: state)
            }
            try keyring.store(key: key, app: app, storePath: realPath, state: state)
        case .none: break
        }
    }

    /// Temporaries of key files a killed rotation left (`KEY.pending.writing-…`).
    func removeLeftovers() {
        guard case .keyFile(let path) = self else { return }
        KeyFile.removeLeftovers(of: path)
    }

    func forgetPending(realPath: String) {
        switch self {
        case .keyFile(let path): _ = FileCalls.unlink(KeyFile.pendingPath(for: path))
        case .keyring(let keyring, _): _ = try? keyring.remove(storePath: realPath, state: .pending)
        case .none: break
        }
    }
}

/// What `vein key status` shows: how the store is keyed, never the key.
public struct KeyStatus: Sendable {
    public let source: KeySource
    /// "raw 256-bit key" or "passphrase (PBKDF2)".
    public let keyKind: String
    public let cipherVersion: String
    public let cipher: String
    public let pageSize: Int
    public let kdfIterations: Int?
    /// A rotation recorded a new key and has not promoted it (it stopped, or is running).
    public let pendingKey: Bool
    /// Keys rotations retired, oldest first: the keyring's for this store, and `FILE.retired-DATE` beside
    /// the key file in use.
    public let retiredKeys: [RetiredKey]
    /// Why the keyring's retired keys could not be listed (it is locked or failed), or nil.
    public let retiredKeysUnknown: String?

    public static func of(_ path: String, keys: KeyOptions) throws -> KeyStatus {
        let store = try Store.open(path, keys: keys, mode: .readOnly)
        guard case .encrypted(let kind, let source) = store.encryption else { throw KeyRotationError.plaintextStore(path) }
        let db = store.database
        let isPassphrase = kind.hasPrefix("passphrase")
        let (retired, unknown) = retiredKeys(of: store.realPath, source: source, keys: keys)
        return KeyStatus(source: source, keyKind: kind, cipherVersion: db.cipherVersion ?? "unknown",
                         cipher: (try? db.scalar("PRAGMA cipher"))??.string ?? "aes-256-cbc",
                         pageSize: Int((try? db.scalar("PRAGMA cipher_page_size"))??.int64 ?? Int64(Database.cipherPageSize)),
                         kdfIterations: isPassphrase ? (try? db.scalar("PRAGMA kdf_iter"))??.string.flatMap { Int($0) } : nil,
                         pendingKey: try keys.pendingKey(realPath: store.realPath) != nil,
                         retiredKeys: retired, retiredKeysUnknown: unknown)
    }

    private static func retiredKeys(of realPath: String, source: KeySource, keys: KeyOptions) -> ([RetiredKey], String?) {
        var retired: [RetiredKey] = []
        var unknown: String?
        if let keyring = keys.keyring {
            do {
                retired += try keyring.retiredKeys(storePath: realPath)
            } catch {
                // No Secret Service on this machine holds no retired key; one that is there and fails is said.
                if case .keyringUnavailable = error, source != .keyring {} else { unknown = error.description }
            }
        }
        var keyFile = keys.keyFile
        if case .keyFile(let path) = source { keyFile = path.hasSuffix(".pending") ? String(path.dropLast(8)) : path }
        if let keyFile {
            retired += KeyFile.retiredCopies(of: keyFile).map { RetiredKey(place: .keyFile($0.path), retiredAt: $0.retiredAt, movedTo: nil, key: nil) }
        }
        return (retired.sorted { $0.retiredAt < $1.retiredAt }, unknown)
    }
}
