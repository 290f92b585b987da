import CSQLCipher
import Foundation

/// One SQLCipher connection.
///
/// Not thread-safe by itself: a connection is used by one thread at a time (the context layer serializes
/// access with a lock). It is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
public final class Database {
    let handle: OpaquePointer
    package let path: String
    private var statementCache: [String: Statement] = [:]
    /// The Swift-written SQL functions registered on this connection (`install`).
    var functionGroups: [any SQLFunctionGroup.Type] = []
    /// The read-only authorizer's switch, once a raw read installed it (Database+ReadOnlySQL).
    var readingGuard: ReadingGuard?
    /// What `traceStatements` calls, kept alive while SQLite holds a pointer to it.
    var statementTracer: StatementTracer?
    /// Savepoints open now (`savepoint`): 0 directly in a transaction, or outside one.
    package private(set) var savepointDepth = 0
    /// Work that commits with this connection's transactions (the change log); see `TransactionObserver`.
    package internal(set) var transactionObserver: (any TransactionObserver)?

    public enum OpenMode: Sendable {
        /// Open an existing file; never create one.
        case readWrite
        case readOnly
        /// Read-only, and SQLite takes the file as unchanging: no locks, no -wal or -shm. Only for a file
        /// nothing can write (`Store.open` decides), since it would not see another process's changes.
        case immutable
        /// Create the file (used only on a temporary path during store creation).
        case create
    }

    /// Page size for every encrypted store. SQLCipher 3's default of 1024 makes encrypted writes about
    /// 1.6x slower and files twice as large (docs/store-format.md); 4096 brings the cost of encryption to about 1.1x.
    package static let cipherPageSize = 4096

    /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    package static let defaultBusyTimeout: Int32 = 5_000

    /// Opens `path` and, for an encrypted store, applies `key` and checks that it decrypts the file.
    /// A wrong key fails here with `StoreError.wrongKey`-worthy `DatabaseError.isNotADatabase`, before any
    /// write: nothing is written by a failed open.
    package init(path: String, mode: OpenMode = .readWrite, key: (any DatabaseKey)?,
                busyTimeout: Int32 = Database.defaultBusyTimeout) throws {
        // URI filenames on, so that ATTACH can name a file immutable (StoreCopier).
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        // With URI filenames on, a plain path that starts with "file:" would be read as a URI.
        var name = path.hasPrefix("file:") ? "./" + path : path
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable:
            flags |= SQLITE_OPEN_READONLY
            name = Database.immutableURI(path)
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        do {
            self.handle = try Self.connect(name, flags: flags, key: key, busyTimeout: busyTimeout)
        } catch let error as DatabaseError where error.isNotADatabase && key != nil {
            // SQLCipher 3 reads the file's salt (its first 16 bytes) when keyed, and takes a failed read for a
            // new file, whose salt it makes up: an I/O error there reads as a wrong key. A second attempt
            // tells a passing error from a wrong key, and a salt that cannot be read at all is an I/O error.
            try Self.requireReadableSalt(path: path)
            self.handle = try Self.connect(name, flags: flags, key: key, busyTimeout: busyTimeout)
        }
        self.path = path
        self.isImmutable = mode == .immutable
    }

    /// A connection to `name`, keyed, whose first page has been read: a wrong key (or a file that is no
    /// database) fails here, and the connection is closed again.
    private static func connect(_ name: String, flags: Int32, key: (any DatabaseKey)?, busyTimeout: Int32) throws -> OpaquePointer {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(extendedCode: rc, message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
        do {
            if let key { try applyKey(key, to: db) }
            // The first read decrypts page 1.
            try execute("SELECT count(*) FROM sqlite_master", on: db)
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
        return db
    }

    /// Throws an I/O error when the first 16 bytes of the file at `path` (an encrypted file's salt) cannot
    /// be read. (A file shorter than that is left to SQLite.)
    private static func requireReadableSalt(path: String) throws {
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { Foundation.close(descriptor) }
        var salt = [UInt8](repeating: 0, count: 16)
        guard pread(descriptor, &salt, salt.count, 0) >= 0 else {
            throw DatabaseError(extendedCode: SQLITE_IOERR | (1 << 8) /* SQLITE_IOERR_READ */, message: "disk I/O error (reading the salt: \(String(cString: strerror(errno))))")
        }
    }

    /// Opened `.immutable`: another connection must read the file the same way (`immutableURI`).
    package let isImmutable: Bool

    /// `file:PATH?immutable=1`, the path percent-encoded: how SQLite opens a file it may take as unchanging.
    package static func immutableURI(_ path: String) -> String {
        let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        let encoded = path.utf8.map { plain.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
        return "file:" + encoded + "?immutable=1"
    }

    deinit {
        if !isClosed {
            statementCache.removeAll()
            sqlite3_close_v2(handle)
        }
    }

    package private(set) var isClosed = false

    /// A closed connection's handle is freed memory: every way to SQL checks this first, so a use after
    /// `close` is an error (SQLITE_MISUSE), not a crash.
    private func requireOpen(_ sql: String) throws {
        guard isClosed else { return }
        throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "the connection is closed", sql: sql)
    }

    /// Closes the connection now. The last connection to a WAL database checkpoints and removes the WAL
    /// on close, leaving a self-contained file. Nothing may be used after this.
    package func close() throws {
        guard !isClosed else { return }
        statementCache.removeAll()
        let rc = sqlite3_close(handle)
        guard rc == SQLITE_OK else { throw lastError(rc, sql: nil) }
        isClosed = true
    }

    /// Keys the connection `db`. Must run before the first read of the file.
    private static func applyKey(_ key: any DatabaseKey, to db: OpaquePointer) throws {
        // sqlite3_key, not PRAGMA key: no SQL text holds the key (the key wipes its buffer after).
        let rc = key.withSQLCipherKey { sqlite3_key(db, $0.baseAddress, Int32($0.count)) }
        guard rc == SQLITE_OK else { throw DatabaseError(extendedCode: rc, message: "the key was refused") }
        // SQLCipher 4 changed its defaults; compatibility 3 keeps stores made here openable there (docs/store-format.md).
        let version = cipherVersion(of: db) ?? "3"
        if let major = Int(version.prefix { $0.isNumber }), major >= 4 {
            try execute("PRAGMA cipher_compatibility = 3", on: db)
        }
        try execute("PRAGMA cipher_page_size = \(Database.cipherPageSize)", on: db)
    }

    /// SQLCipher's version ("3.4.1"), or nil when the library is plain SQLite.
    package var cipherVersion: String? { Self.cipherVersion(of: handle) }

    private static func cipherVersion(of db: OpaquePointer) -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA cipher_version", -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }

    package static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// The linked SQLCipher's version, read from a throwaway in-memory connection.
    package static var cipherLibraryVersion: String? {
        (try? Database(path: ":memory:", mode: .create, key: nil))?.cipherVersion
    }

    // MARK: Executing

    /// Runs one or more statements that return no rows of interest.
    package func execute(_ sql: String) throws {
        try requireOpen(sql)
        try executeObserved(sql)
    }

    private func executeObserved(_ sql: String) throws {
        let mark = transactionObserver?.mark
        do {
            try Self.execute(sql, on: handle)
            if mark != nil { try transactionObserver?.statementDidFinish(self) }
        } catch {
            if let mark { transactionObserver?.undo(to: mark) }
            throw error
        }
    }

    private static func execute(_ sql: String, on db: OpaquePointer) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw DatabaseError(extendedCode: sqlite3_extended_errcode(db), message: message, sql: sql)
        }
    }

    /// `ATTACH DATABASE file AS name KEY keyArgument`. Attaching an existing encrypted file reads its salt,
    /// which SQLCipher 3 makes up when that read fails (see `init`): a second attempt tells a passing I/O
    /// error from a wrong key.
    package func attach(_ file: String, as name: String, keyArgument: String) throws {
        let sql = "ATTACH DATABASE ? AS \(SQL.quoteIdentifier(name)) KEY ?"
        do {
            try execute(sql, [.text(file), .text(keyArgument)])
        } catch let error as DatabaseError where error.isNotADatabase && !keyArgument.isEmpty {
            if !file.hasPrefix("file:") { try Self.requireReadableSalt(path: file) }
            try execute(sql, [.text(file), .text(keyArgument)])
        }
    }

    /// Runs one statement with arguments, through the statement cache.
    package func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        try cachedStatement(sql).execute(arguments)
    }

    /// The first column of the first row, or nil when there is no row.
    package func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        return try statement.step() ? statement.value(0) : nil
    }

    package func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        try cachedStatement(sql).rows(arguments)
    }

    /// A prepared statement compiled once per connection and reused.
    package func cachedStatement(_ sql: String) throws -> Statement {
        try requireOpen(sql)
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(database: self, sql: sql)
        // Bounded: the key is the SQL text, and an app's raw conditions (ModelPredicate) are part of it.
        // Starting over is safe: a caller holding a statement keeps it alive until it lets it go.
        if statementCache.count >= Self.statementCacheLimit { statementCache.removeAll(keepingCapacity: true) }
        statementCache[sql] = statement
        return statement
    }

    /// How many statements the cache keeps at most before it starts over.
    package static let statementCacheLimit = 256
    package var cachedStatementCount: Int { statementCache.count }

    /// A fresh statement, not cached (for one-off SQL).
    package func makeStatement(_ sql: String) throws -> Statement {
        try requireOpen(sql)
        return try Statement(database: self, sql: sql)
    }

    package var changes: Int { Int(sqlite3_changes(handle)) }
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    package var isInTransaction: Bool { !isClosed && sqlite3_get_autocommit(handle) == 0 }

    // MARK: Transactions

    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN, so a competing writer fails (busy) before doing any work.
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. Inside an
    /// open transaction it nests as a savepoint, so work that saves (a model context) can run as one part
    /// of a larger atomic whole (a migration).
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if isInTransaction { return try savepoint("vein_nested", body) }
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try transactionObserver?.willCommit(self)
            try execute("COMMIT")
            return result
        } catch {
            // ROLLBACK can fail only if SQLite already rolled back (e.g. after SQLITE_FULL): nothing to undo.
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// How long statements wait for another connection's lock; 0 fails at once with SQLITE_BUSY.
    package func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs `body` inside a savepoint, which nests inside a transaction or another savepoint.
    package func savepoint<T>(_ name: String = "vein", _ body: () throws -> T) throws -> T {
        let quoted = SQL.quoteIdentifier(name)
        try execute("SAVEPOINT \(quoted)")
        let mark = transactionObserver?.mark
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        do {
            let result = try body()
            try execute("RELEASE \(quoted)")
            return result
        } catch {
            try? execute("ROLLBACK TO \(quoted); RELEASE \(quoted)")
            if let mark { transactionObserver?.undo(to: mark) }
            throw error
        }
    }

    func lastError(_ rc: Int32, sql: String?) -> DatabaseError {
        DatabaseError(extendedCode: sqlite3_extended_errcode(handle),
                      message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

/// SQL text helpers.
package enum SQL {
    /// `"name"` with embedded quotes doubled: safe for any identifier.
    package static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `?, ?, ?`: `count` parameters, for an `IN (…)` list or a `VALUES (…)` row.
    package static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// `'text'` with embedded quotes doubled.
    package static func quoteString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
