import CSQLCipher
import Foundation
import Testing
@testable import Vein

/// The storage layer: connections, statements, values, transactions and errors.
@Suite struct StorageTests {
    private func memory() throws -> Database { try Database(path: ":memory:", mode: .create, key: nil) }

    // MARK: Opening and executing

    @Test func opensInMemoryAndExecutesSeveralStatements() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'one'); INSERT INTO t VALUES (2, 'two')")
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(2))
        #expect(try db.rows("SELECT a, b FROM t ORDER BY a") == [[.integer(1), .text("one")], [.integer(2), .text("two")]])
        // No row is nil; a row holding NULL is .null.
        #expect(try db.scalar("SELECT a FROM t WHERE a = 99") == Optional<DatabaseValue>.none)
        #expect(try db.scalar("SELECT NULL") == Optional<DatabaseValue>.some(.null))
        #expect(db.changes == 1)
        #expect(!db.isInTransaction)
        #expect(db.cipherVersion != nil)
        #expect(Database.cipherLibraryVersion == db.cipherVersion)
        #expect(Database.sqliteVersion.hasPrefix("3."))
    }

    @Test func executeWithArgumentsAndChanges() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a INTEGER)")
        for i in 0..<5 { try db.execute("INSERT INTO t VALUES (?)", [.integer(Int64(i))]) }
        try db.execute("UPDATE t SET a = a + 10 WHERE a >= ?", [.integer(2)])
        #expect(db.changes == 3)
        #expect(try db.rows("SELECT a FROM t ORDER BY a").map { $0[0] } == [0, 1, 12, 13, 14])
    }

    @Test func openingAMissingFileReadWriteFailsAndCreatesNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("missing.db")
        #expect {
            try Database(path: path, mode: .readWrite, key: nil)
        } throws: { error in
            (error as? DatabaseError)?.code == SQLITE_CANTOPEN
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try dir.contents().isEmpty)
    }

    @Test func readOnlyConnectionRefusesWrites() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("ro.db")
        do {
            let db = try Database(path: path, mode: .create, key: nil)
            try db.execute("CREATE TABLE t (a)")
            try db.close()
        }
        let ro = try Database(path: path, mode: .readOnly, key: nil)
        #expect(try ro.scalar("SELECT count(*) FROM t") == .integer(0))
        let error = try #require(throws: DatabaseError.self) { try ro.execute("INSERT INTO t VALUES (1)") }
        #expect(error.code == SQLITE_READONLY)
    }

    @Test func closeIsIdempotent() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a)")
        _ = try db.cachedStatement("SELECT a FROM t")
        try db.close()
        try db.close()
    }

    // MARK: Statement cache

    @Test func cachedStatementIsReusedAndMakeStatementIsNot() throws {
        let db = try memory()
        let a = try db.cachedStatement("SELECT ?")
        let b = try db.cachedStatement("SELECT ?")
        let c = try db.cachedStatement("SELECT ? + 1")
        #expect(a === b)
        #expect(a !== c)
        #expect(a.sql == "SELECT ?")
        let fresh1 = try db.makeStatement("SELECT ?")
        let fresh2 = try db.makeStatement("SELECT ?")
        #expect(fresh1 !== fresh2)
        #expect(fresh1 !== a)
    }

    @Test func cachedStatementNeverCarriesAPreviousCallersBindings() throws {
        let db = try memory()
        #expect(try db.scalar("SELECT ?", [.integer(5)]) == .integer(5))
        // Bindings were cleared after the first use: an unbound parameter is NULL.
        #expect(try db.scalar("SELECT ?") == .null)
        #expect(try db.rows("SELECT ?, ?", [.text("a"), .integer(1)]) == [[.text("a"), .integer(1)]])
        #expect(try db.rows("SELECT ?, ?") == [[.null, .null]])
    }

    @Test func cachedStatementIsResetAfterAPartialReadAndAfterAnError() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1), (2), (3)")
        // scalar reads only the first row and must leave no read open.
        #expect(try db.scalar("SELECT a FROM t ORDER BY a") == .integer(1))
        #expect(try db.scalar("SELECT a FROM t ORDER BY a") == .integer(1))
        #expect(!db.isInTransaction)
        // A failing step resets the statement, which works again with other arguments.
        let insert = "INSERT INTO t VALUES (?)"
        #expect(throws: DatabaseError.self) { try db.execute(insert, [.integer(1)]) }
        try db.execute(insert, [.integer(4)])
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(4))
    }

    @Test func stepByStepReadingWithTypedAccessors() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (i, r, s, b, n)")
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                       [.integer(42), .real(2.5), .text("héllo"), .blob(Data([1, 2, 3])), .null])
        let statement = try db.makeStatement("SELECT i, r, s, b, n FROM t")
        #expect(statement.columnCount == 5)
        #expect((0..<5).map(statement.columnName) == ["i", "r", "s", "b", "n"])
        #expect(try statement.step())
        #expect(statement.int64(0) == 42)
        #expect(statement.double(1) == 2.5)
        #expect(statement.string(2) == "héllo")
        #expect(statement.data(3) == Data([1, 2, 3]))
        #expect(statement.isNull(4))
        #expect(!statement.isNull(0))
        #expect(statement.string(4) == "")
        #expect(statement.data(4) == Data())
        #expect(try !statement.step())
        statement.reset()
        #expect(try statement.step())
    }

    @Test func bindingOutOfRangeIsAnError() throws {
        let db = try memory()
        let error = try #require(throws: DatabaseError.self) { try db.rows("SELECT ?", [.integer(1), .integer(2)]) }
        #expect(error.code == SQLITE_RANGE)
        // And the cached statement is usable afterwards, with no stale binding.
        #expect(try db.scalar("SELECT ?") == .null)
    }

    @Test func prepareErrorKeepsTheSQL() throws {
        let db = try memory()
        let error = try #require(throws: DatabaseError.self) { try db.cachedStatement("SELEC 1") }
        #expect(error.code == SQLITE_ERROR)
        #expect(error.message.contains("syntax error"))
        #expect(error.sql == "SELEC 1")
        #expect(error.description == "SQLite error 1: \(error.message) (in: SELEC 1)")
    }

    // MARK: Values

    static let roundTripValues: [DatabaseValue] = [
        .null,
        .integer(0), .integer(1), .integer(-1), .integer(Int64.min), .integer(Int64.max),
        .real(0.1), .real(-2.5), .real(1e-300), .real(Double.greatestFiniteMagnitude), .real(-Double.leastNonzeroMagnitude),
        .real(3.0), .real(Double.pi), .real(.infinity), .real(-.infinity),
        .text(""), .text("plain"), .text("héllo wörld"), .text("日本語テキスト"), .text("emoji 🌍👩‍👩‍👧 and flags 🇫🇷"),
        .text("quotes ' \" and \\ backslash"), .text("line\nbreak\ttab"),
        .blob(Data()), .blob(Data([0])), .blob(Data([0, 1, 2, 255])), .blob(Data((0..<1000).map { UInt8($0 % 256) })),
    ]

    @Test(arguments: roundTripValues)
    func everyValueRoundTripsThroughAnUntypedColumn(value: DatabaseValue) throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (v)")
        try db.execute("INSERT INTO t VALUES (?)", [value])
        #expect(try db.scalar("SELECT v FROM t") == value)
        // The storage class is kept too (an empty blob stays a blob, not NULL or text).
        let expectedType: String
        switch value {
        case .null: expectedType = "null"
        case .integer: expectedType = "integer"
        case .real: expectedType = "real"
        case .text: expectedType = "text"
        case .blob: expectedType = "blob"
        }
        #expect(try db.scalar("SELECT typeof(v) FROM t") == .text(expectedType))
        // Binding directly into a SELECT gives the same value back.
        #expect(try db.scalar("SELECT ?", [value]) == value)
    }

    @Test func emptyBlobStaysABlob() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (v BLOB NOT NULL)")
        try db.execute("INSERT INTO t VALUES (?)", [.blob(Data())])
        #expect(try db.scalar("SELECT typeof(v) FROM t") == .text("blob"))
        #expect(try db.scalar("SELECT length(v) FROM t") == .integer(0))
        #expect(try db.scalar("SELECT v FROM t") == .blob(Data()))
        #expect(try db.scalar("SELECT v FROM t")?.data == Data())
    }

    @Test func unicodeTextKeepsItsBytes() throws {
        let db = try memory()
        let text = "Zürich · 東京 · 🌍 · e\u{301} (combining)"
        #expect(try db.scalar("SELECT ?", [.text(text)]) == .text(text))
        #expect(try db.scalar("SELECT length(CAST(? AS BLOB))", [.text(text)]) == .integer(Int64(text.utf8.count)))
    }

    @Test func textWithAnEmbeddedNULIsKeptWhole() throws {
        let db = try memory()
        let text = "before\u{0}after"
        #expect(try db.scalar("SELECT ?", [.text(text)]) == .text(text))
        #expect(try db.scalar("SELECT length(CAST(? AS BLOB))", [.text(text)]) == .integer(12))
    }

    @Test func integerExtremesSurviveArithmeticFreeRoundTrip() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (v INTEGER)")
        try db.execute("INSERT INTO t VALUES (?), (?)", [.integer(.min), .integer(.max)])
        #expect(try db.rows("SELECT v FROM t ORDER BY v").map { $0[0].int64 } == [Int64.min, Int64.max])
    }

    @Test func doublesRoundTripExactlyInARealColumn() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (v REAL)")
        var rng = SplitMix64(seed: 7)
        var values: [Double] = [0.1, 0.2, 0.30000000000000004, 1.0 / 3.0, 123456789.123456789, -1e-10, Double.leastNonzeroMagnitude]
        for _ in 0..<200 { values.append(Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)) }
        for v in values { try db.execute("INSERT INTO t VALUES (?)", [.real(v)]) }
        let read = try db.rows("SELECT v FROM t ORDER BY rowid").map { $0[0].double }
        #expect(read == values.map(Optional.some))
        // An integral double in a REAL column reads back as a real.
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t VALUES (?)", [.real(3.0)])
        #expect(try db.scalar("SELECT v FROM t") == .real(3.0))
    }

    @Test func databaseValueAccessorsAndLiterals() {
        let i: DatabaseValue = 7
        let r: DatabaseValue = 1.5
        let s: DatabaseValue = "x"
        let n: DatabaseValue = .null
        #expect(i == .integer(7) && r == .real(1.5) && s == .text("x") && n == .null)
        #expect(i.int64 == 7 && i.double == 7.0 && i.string == nil && i.data == nil && !i.isNull)
        #expect(r.double == 1.5 && r.int64 == nil)
        #expect(s.string == "x" && s.double == nil)
        #expect(DatabaseValue.blob(Data([1])).data == Data([1]))
        #expect(n.isNull && n.int64 == nil && n.double == nil && n.string == nil && n.data == nil)
        #expect(DatabaseValue.blob(Data()) != .null)
        #expect(DatabaseValue.text("") != .blob(Data()))
    }

    // MARK: Transactions

    @Test func transactionCommitsWhenTheBodyReturns() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a)")
        let result = try db.transaction { () -> Int in
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
            return 42
        }
        #expect(result == 42)
        #expect(!db.isInTransaction)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1))
    }

    struct Boom: Error, Equatable {}

    @Test(arguments: [Database.TransactionKind.deferred, .immediate, .exclusive])
    func transactionRollsBackWhenTheBodyThrows(kind: Database.TransactionKind) throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a)")
        try db.execute("INSERT INTO t VALUES (0)")
        #expect(throws: Boom.self) {
            try db.transaction(kind) {
                try db.execute("INSERT INTO t VALUES (1)")
                try db.execute("UPDATE t SET a = 100")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.rows("SELECT a FROM t") == [[.integer(0)]])
    }

    @Test func transactionRollsBackWhenAStatementFails() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a UNIQUE)")
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                try db.execute("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error.isConstraintViolation)
        #expect(!db.isInTransaction)
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func nestedSavepointRollsBackOnlyItsOwnWork() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a)")
        try db.transaction {
            try db.execute("INSERT INTO t VALUES (1)")
            #expect(throws: Boom.self) {
                try db.savepoint("inner") {
                    try db.execute("INSERT INTO t VALUES (2)")
                    throw Boom()
                }
            }
            #expect(db.isInTransaction)
            try db.savepoint("kept") { try db.execute("INSERT INTO t VALUES (3)") }
            try db.execute("INSERT INTO t VALUES (4)")
        }
        #expect(try db.rows("SELECT a FROM t ORDER BY a").map { $0[0] } == [1, 3, 4])
    }

    @Test func savepointsNestInsideSavepoints() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a)")
        try db.savepoint("outer") {
            try db.execute("INSERT INTO t VALUES ('outer')")
            #expect(throws: Boom.self) {
                try db.savepoint("middle") {
                    try db.execute("INSERT INTO t VALUES ('middle')")
                    try db.savepoint("inner") { try db.execute("INSERT INTO t VALUES ('inner')") }
                    throw Boom()
                }
            }
            // Same name nested: the innermost is rolled back.
            try db.savepoint("outer") {
                try db.execute("INSERT INTO t VALUES ('same-name')")
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.rows("SELECT a FROM t ORDER BY rowid").map { $0[0] } == ["outer", "same-name"])
    }

    @Test func savepointOutsideATransactionCommitsOrRollsBack() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a)")
        try db.savepoint { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(!db.isInTransaction)
        #expect(throws: Boom.self) {
            try db.savepoint {
                try db.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.rows("SELECT a FROM t").map { $0[0] } == [1])
    }

    @Test func savepointNamesAreQuoted() throws {
        let db = try memory()
        try db.execute("CREATE TABLE t (a)")
        try db.savepoint("odd \"name\" with spaces") { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(1))
        #expect(SQL.quoteIdentifier("a\"b") == "\"a\"\"b\"")
        #expect(SQL.quoteString("it's") == "'it''s'")
    }

    // MARK: Errors

    @Test func uniqueViolationKeepsCodesMessageAndSQL() throws {
        let db = try memory()
        try db.execute("CREATE TABLE u (x UNIQUE)")
        let insert = "INSERT INTO u (x) VALUES (?)"
        try db.execute(insert, [.integer(1)])
        let error = try #require(throws: DatabaseError.self) { try db.execute(insert, [.integer(1)]) }
        #expect(error.code == SQLITE_CONSTRAINT)
        #expect(error.code == 19)
        #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.message == "UNIQUE constraint failed: u.x")
        #expect(error.sql == insert)
        #expect(error.isConstraintViolation && !error.isBusy && !error.isNotADatabase)
        #expect(error.description == "SQLite error 2067: UNIQUE constraint failed: u.x (in: \(insert))")

        // The same through sqlite3_exec (execute without arguments).
        let literal = "INSERT INTO u (x) VALUES (1)"
        let viaExec = try #require(throws: DatabaseError.self) { try db.execute(literal) }
        #expect(viaExec.extendedCode == 2067)
        #expect(viaExec.message == "UNIQUE constraint failed: u.x")
        #expect(viaExec.sql == literal)
    }

    @Test func otherConstraintsHaveTheirExtendedCodes() throws {
        let db = try memory()
        try db.execute("CREATE TABLE c (a NOT NULL, b CHECK (b > 0), p INTEGER PRIMARY KEY)")
        let notNull = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO c (a, b) VALUES (?, 1)", [.null]) }
        #expect(notNull.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        #expect(notNull.message == "NOT NULL constraint failed: c.a")
        let check = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO c (a, b) VALUES (1, ?)", [.integer(0)]) }
        #expect(check.extendedCode == 275)  // SQLITE_CONSTRAINT_CHECK
        try db.execute("INSERT INTO c (a, b, p) VALUES (1, 1, 1)")
        let pk = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO c (a, b, p) VALUES (1, 1, 1)") }
        #expect(pk.extendedCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(pk.code == SQLITE_CONSTRAINT)
    }

    @Test func errorCodePredicates() {
        #expect(DatabaseError(extendedCode: SQLITE_BUSY, message: "").isBusy)
        #expect(DatabaseError(extendedCode: 517, message: "").isBusy)  // SQLITE_BUSY_SNAPSHOT
        #expect(DatabaseError(extendedCode: SQLITE_LOCKED, message: "").isBusy)
        #expect(DatabaseError(extendedCode: SQLITE_NOTADB, message: "").isNotADatabase)
        #expect(!DatabaseError(extendedCode: SQLITE_ERROR, message: "").isNotADatabase)
        #expect(DatabaseError(extendedCode: 2067, message: "").code == 19)
        #expect(DatabaseError(extendedCode: 26, message: "m").description == "SQLite error 26: m")
    }

    // MARK: Encryption

    private func makeEncrypted(at path: String, key: CipherKey) throws {
        let db = try Database(path: path, mode: .create, key: key)
        try db.execute("CREATE TABLE secret (v TEXT); INSERT INTO secret VALUES ('the plaintext marker')")
        try db.close()
    }

    @Test func encryptedDatabaseOpensWithItsKeyOnly() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("enc.db")
        let key = CipherKey.raw(Data(repeating: 0xAB, count: 32))
        try makeEncrypted(at: path, key: key)

        let bytes = try dir.bytes("enc.db")
        #expect(!bytes.starts(with: Array("SQLite format 3\0".utf8)))
        #expect(bytes.range(of: Data("the plaintext marker".utf8)) == nil)
        #expect(bytes.count % Database.cipherPageSize == 0)

        let db = try Database(path: path, key: key)
        #expect(try db.scalar("SELECT v FROM secret") == .text("the plaintext marker"))
        #expect(try db.scalar("PRAGMA cipher_page_size") == .text("4096") || (try db.scalar("PRAGMA cipher_page_size")) == .integer(4096))
    }

    @Test(arguments: [
        CipherKey.raw(Data(repeating: 0xAC, count: 32)),
        .passphrase("not the key"),
    ])
    func wrongKeyFailsAtOpenAndLeavesTheFileByteIdentical(wrong: CipherKey) throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("enc.db")
        try makeEncrypted(at: path, key: .raw(Data(repeating: 0xAB, count: 32)))
        let before = try dir.bytes("enc.db")
        let namesBefore = try dir.contents()

        let error = try #require(throws: DatabaseError.self) { try Database(path: path, key: wrong) }
        #expect(error.isNotADatabase)
        #expect(error.code == SQLITE_NOTADB)

        #expect(try dir.bytes("enc.db") == before)
        #expect(try dir.contents() == namesBefore)
    }

    @Test func encryptedDatabaseWithoutAKeyIsNotADatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("enc.db")
        try makeEncrypted(at: path, key: .passphrase("correct horse"))
        let before = try dir.bytes("enc.db")
        let error = try #require(throws: DatabaseError.self) { try Database(path: path, key: nil) }
        #expect(error.isNotADatabase)
        #expect(try dir.bytes("enc.db") == before)
        // The passphrase opens it.
        let db = try Database(path: path, key: CipherKey.passphrase("correct horse"))
        #expect(try db.scalar("SELECT count(*) FROM secret") == .integer(1))
    }

    @Test func plaintextDatabaseOpenedWithAKeyIsNotADatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("plain.db")
        do {
            let db = try Database(path: path, mode: .create, key: nil)
            try db.execute("CREATE TABLE t (a)")
            try db.close()
        }
        let before = try dir.bytes("plain.db")
        #expect(before.starts(with: Array("SQLite format 3\0".utf8)))
        let error = try #require(throws: DatabaseError.self) {
            try Database(path: path, key: CipherKey.raw(Data(repeating: 1, count: 32)))
        }
        #expect(error.isNotADatabase)
        #expect(try dir.bytes("plain.db") == before)
    }

    @Test func aFileThatIsNoDatabaseIsNotADatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("junk.db", String(repeating: "not a database at all. ", count: 100))
        let before = try dir.bytes("junk.db")
        let error = try #require(throws: DatabaseError.self) { try Database(path: dir.path("junk.db"), key: nil) }
        #expect(error.isNotADatabase)
        #expect(try dir.bytes("junk.db") == before)
    }

    // MARK: Locking

    @Test func aSecondWriterFailsWithBusyWhileTheFirstHoldsTheWriteLock() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("busy.db")
        let first = try Database(path: path, mode: .create, key: nil)
        try first.execute("CREATE TABLE t (a)")
        let second = try Database(path: path, key: nil, busyTimeout: 20)

        try first.execute("BEGIN IMMEDIATE")
        try first.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: DatabaseError.self) { try second.execute("BEGIN IMMEDIATE") }
        #expect(error.isBusy)
        #expect(error.code == SQLITE_BUSY)
        #expect(!second.isInTransaction)
        let viaTransaction = try #require(throws: DatabaseError.self) {
            try second.transaction { try second.execute("INSERT INTO t VALUES (2)") }
        }
        #expect(viaTransaction.isBusy)

        try first.execute("COMMIT")
        try second.transaction { try second.execute("INSERT INTO t VALUES (2)") }
        #expect(try first.scalar("SELECT count(*) FROM t") == .integer(2))
    }

    @Test func busyAlsoInWALMode() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("wal.db")
        let key = CipherKey.raw(Data(repeating: 0x42, count: 32))
        let first = try Database(path: path, mode: .create, key: key)
        #expect(try first.scalar("PRAGMA journal_mode = WAL") == .text("wal"))
        try first.execute("CREATE TABLE t (a)")
        let second = try Database(path: path, key: key, busyTimeout: 20)
        try first.execute("BEGIN IMMEDIATE")
        let error = try #require(throws: DatabaseError.self) { try second.execute("BEGIN IMMEDIATE") }
        #expect(error.isBusy)
        // Readers are not blocked by a writer in WAL mode.
        #expect(try second.scalar("SELECT count(*) FROM t") == .integer(0))
        try first.execute("ROLLBACK")
    }
}
