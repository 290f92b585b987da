import CSQLCipher

/// An error reported by SQLite, keeping its primary and extended result codes, its message and the
/// statement that failed, so a caller can react to the code and a person can read the message.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    public var code: Int32 { extendedCode & 0xff }
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …).
    public let extendedCode: Int32
    /// SQLite's own message.
    public let message: String
    /// The SQL that failed, when there was one.
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The store is locked by another connection and the busy timeout ran out.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// SQLCipher reports a wrong key as "file is encrypted or is not a database".
    public var isNotADatabase: Bool { code == SQLITE_NOTADB }
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// `interrupt()` stopped the statement (Ctrl-C in the REPL).
    package var isInterrupted: Bool { code == SQLITE_INTERRUPT }
    /// The file is damaged: a page SQLite cannot parse (SQLITE_CORRUPT), or one that is no database page
    /// at all (SQLITE_NOTADB, after the key opened page 1; SQLCipher's failed HMAC check on a page).
    public var isDamage: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    public var description: String {
        if let sql { return "SQLite error \(extendedCode): \(message) (in: \(sql))" }
        return "SQLite error \(extendedCode): \(message)"
    }
}
