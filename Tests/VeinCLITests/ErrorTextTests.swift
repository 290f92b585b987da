import CSQLCipher
import Testing
import Vein
@testable import VeinCLI

/// Messages of new error mappings that no end-to-end test reaches on its own.
@Suite struct ErrorTextTests {
    /// SQLite's own refusal to write (a store made read-only after it was opened, say): the fallback behind
    /// `StoreError.readOnly`, which `Store.open` reports before SQLite runs.
    @Test func sqliteReadOnlyIsAReadOnlyStoreExit74() {
        let report = ErrorReporting.report(DatabaseError(extendedCode: SQLITE_READONLY, message: "attempt to write a readonly database"))
        #expect(report.messages == ["the store is read-only: attempt to write a readonly database"])
        #expect(report.hint == nil)
        #expect(report.exitCode == .ioError)
    }
}
