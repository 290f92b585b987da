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

    /// A fetch stopped by `interrupt()` is not bad data: it says so and exits 1, not 65 (the REPL notes it
    /// as "interrupted" instead, ReplTerminalTests).
    @Test func anInterruptedFetchIsAFailureNotBadData() {
        let report = ErrorReporting.report(ContextError.interrupted)
        #expect(report.messages == ["the fetch was interrupted before it finished; nothing was returned"])
        #expect(report.hint == nil)
        #expect(report.exitCode == .failure)
    }

    /// After a conflict a REPL session's pending changes can never be saved: its hint says to roll back and
    /// repeat them ("run the command again" left `save` failing the same way forever); a command's hint,
    /// and a script's (which stops, writing nothing), stay. The same for a store migrated under a session.
    @Test func aSessionIsToldToRollBackAfterAConflict() {
        let conflict = ContextError.conflict(model: "Post", id: "01J0000000000000000000000Z")
        #expect(ErrorReporting.report(conflict, in: .session).hint == "'rollback', then repeat your statements: they will read the row as it is now")
        #expect(ErrorReporting.report(conflict).hint == "run the command again: it will read the row as it is now")
        #expect(ErrorReporting.report(ScriptError(place: "line 3", underlying: conflict)).hint
                == "run the command again: it will read the row as it is now")
        let migrated = StoreError.schemaChanged("b.vein", from: "0.0.2", to: "0.1.0")
        #expect(ErrorReporting.report(migrated, in: .session).hint
                == "quit and start 'vein repl' again: it will use the store's new schema (changes not saved are lost)")
        #expect(ErrorReporting.report(migrated).hint == "run the command again: it will use the store's new schema")
    }

    /// A unique value refused at a session's `save`: the change stays pending and would be refused again,
    /// so the hint says so; a command's and a script's stay.
    @Test func aSessionIsToldItsRefusedChangeIsPending() {
        let refused = ContextError.constraintViolation("UNIQUE constraint failed: Person.email")
        let session = ErrorReporting.report(refused, in: .session)
        #expect(session.messages == ["the store refused the change: another Person already has this email (email is unique)"])
        #expect(session.hint == "the change is still pending: 'rollback', or give the Person other values and 'save' again")
        #expect(session.exitCode == .dataError)
        #expect(ErrorReporting.report(refused).hint == "give the Person other values, or update the Person that has them")
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

    /// A synced store's migration that is not finished, done by another plan, raced, or blocked by rows set
    /// aside (docs/sync.md#migrations): each says what to run, with its own status.
    @Test func aSyncedStoresMigrationErrorsSayWhatToRun() {
        let unfinished = ErrorReporting.report(SyncError.migrationUnfinished("b.vein", commit: 7))
        #expect(unfinished.messages == ["b.vein was migrated since its last sync (commit 7), and the migration is not yet published to the other replicas"])
        #expect(unfinished.hint == "finish it with 'vein migrate STORE --plan PLAN' (the plan that migrated it)")
        #expect(unfinished.exitCode == .configuration)
        let differs = ErrorReporting.report(SyncError.migrationDiffers("b.vein", migration: 1, version: "0.2.0", theirs: "0.3.0"))
        #expect(differs.messages == ["b.vein was migrated to schema version 0.2.0, and the sync's migration 1 took its replicas to 0.3.0"])
        #expect(differs.exitCode == .dataError)
        let raced = ErrorReporting.report(SyncError.snapshotTaken("relay", kind: "migration", number: 2))
        #expect(raced.messages == ["another replica published migration 2 of relay first"])
        #expect(raced.hint == "run the same command again: it starts from what that replica published" && raced.exitCode == .busy)
        let pruned = ErrorReporting.report(SyncError.prunedPast("relay", replica: "R1", sequence: 4))
        #expect(pruned.messages == ["relay no longer holds replica R1's segments after 4, the last this replica merged: they were pruned"])
        #expect(pruned.hint == "nothing past them was merged: this store is behind what every known replica had merged (a copy put back, or a "
                + "replica the relay did not know); make a new replica with 'vein sync join' and use it in this one's place" && pruned.exitCode == .dataError)
        let setAside = ErrorReporting.report(SyncError.conflictsOpen("b.vein", count: 2))
        #expect(setAside.hint == "nothing was migrated; resolve them first ('vein sync conflicts STORE')" && setAside.exitCode == .dataError)
    }
}
