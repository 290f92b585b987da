import CSQLCipher
import Testing
@testable import Vein

/// A function group SQLite refuses to register makes `install` throw, instead of a statement that calls
/// one of its functions failing later with "no such function" (or a context opening as if all were well).
@Suite struct SQLFunctionInstallTests {
    /// A group with one function SQLite refuses: more arguments than SQLite lets a function take.
    enum RefusedGroup: SQLFunctionGroup {
        static func register(on handle: OpaquePointer) throws(DatabaseError) {
            try SQLFunctions.create([("vein_test_refused", 1_000, { c, _, _ in sqlite3_result_null(c) })], flags: SQLITE_UTF8, on: handle)
        }
        static func error(fromMessage message: String) -> (any Error)? { nil }
    }

    @Test func aRefusedRegistrationThrowsSQLitesErrorAndIsNotRecorded() throws {
        let database = try Database(path: ":memory:", mode: .create, key: nil)
        let error = #expect(throws: DatabaseError.self) { try database.install(RefusedGroup.self) }
        #expect(error?.code == SQLITE_MISUSE)
        #expect(error?.message == "could not register the SQL function vein_test_refused: library routine called out of sequence")
        // Not recorded as installed: a second install tries again, and fails again.
        #expect(throws: DatabaseError.self) { try database.install(RefusedGroup.self) }
    }

    @Test func veinsOwnFunctionsRegisterAndAreInstalledOnce() throws {
        let database = try Database(path: ":memory:", mode: .create, key: nil)
        try database.install(SQLFunctions.self)
        try database.install(SQLFunctions.self)
        #expect(try database.scalar("SELECT vein_add(2, 3)")?.int64 == 5)
    }
}
