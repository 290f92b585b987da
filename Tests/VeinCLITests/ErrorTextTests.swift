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

    /// A rotation that put the new key in place but could not mark the old one retired: the data is safe, the
    /// command failed (74), and the hint says what happens to the old key.
    @Test func anOldKeyNotRetiredIsExit74() {
        let keyring = ErrorReporting.report(KeyRotationError.oldKeyNotRetired(.keyring, newHome: .passphrasePrompt, reason: "the keyring is locked"))
        #expect(keyring.messages == ["the store was rotated and opens with the new passphrase, but the old key in the keyring could not be "
                                     + "marked retired: the keyring is locked"])
        #expect(keyring.hint == "the keyring's old key is marked as moved: the next command that finds it no longer opens the store retires it")
        #expect(keyring.exitCode == .ioError)
        let file = ErrorReporting.report(KeyRotationError.oldKeyNotRetired(.keyFile("k"), newHome: .keyring, reason: "Permission denied"))
        #expect(file.messages == ["the store was rotated and opens with the new key in the keyring, but the old key in the key file k could not "
                                  + "be marked retired: Permission denied"])
        #expect(file.hint == "the old key no longer opens the store: mark it retired by hand (rename the key file to FILE.retired-DATE)")
        #expect(file.exitCode == .ioError)
    }
}
