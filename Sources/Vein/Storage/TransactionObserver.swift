import CSQLCipher

/// Work that must commit with a connection's transactions and be undone with them. The change log
/// (docs/history.md) is one: it is told of each row change as SQLite makes it, and writes its record
/// inside the transaction, just before COMMIT (ARCHITECTURE.md I20).
///
/// SQLite undoes work at three grains, and the observer follows each: a failing statement's own changes
/// (`Statement.step`, `Database.execute`: `undo(to:)` the mark taken before it), a savepoint rolled back
/// (`Database.savepoint`: the same), and a whole transaction (the rollback hook: `transactionDidRollBack`).
/// A commit the observer has not prepared for (`hasUnwrittenChanges`) is refused by the commit hook, so no
/// change commits without its record, whichever path began the transaction.
package protocol TransactionObserver: AnyObject {
    /// Inside the transaction, before COMMIT: writes what must commit with it. A throw rolls it back.
    func willCommit(_ database: Database) throws
    /// Where the observer's record stands now.
    var mark: Int { get }
    /// Forgets what was recorded after `mark`, because SQLite undid it.
    func undo(to mark: Int)
    /// The transaction ended without committing.
    func transactionDidRollBack()
    /// True while changes are recorded that `willCommit` has not written: a commit now is refused.
    var hasUnwrittenChanges: Bool { get }
    /// A statement that may write finished (outside any SQLite callback): a moment to write out work.
    func statementDidFinish(_ database: Database) throws
    /// SQLite dropped the connection's TEMP triggers, tables and views (`setTemporaryStore`): the
    /// observer makes its own again.
    func temporarySchemaWasCleared(_ database: Database) throws
}

extension Database {
    /// Runs `body` with the connection's triggers off (SQLite then prepares each statement again once).
    package func withTriggersOff<T>(_ body: () throws -> T) throws -> T {
        guard vein_enable_triggers(handle, 0) == SQLITE_OK else { throw lastError(SQLITE_ERROR, sql: nil) }
        defer { vein_enable_triggers(handle, 1) }
        return try body()
    }

    /// `PRAGMA temp_store = value`. A change drops every TEMP trigger, table and view of the connection
    /// (SQLite's rule), the transaction observer's included, so this is the one way Vein changes it.
    package func setTemporaryStore(_ value: String) throws {
        try execute("PRAGMA temp_store = \(value)")
        try transactionObserver?.temporarySchemaWasCleared(self)
    }

    /// Makes `observer` this connection's one transaction observer, and has SQLite tell it of commits and
    /// rollbacks however they come (an autocommit statement, a failed COMMIT, SQLite's own rollback on a
    /// full disk).
    package func observeTransactions(_ observer: any TransactionObserver) {
        precondition(transactionObserver == nil, "a connection has one transaction observer")
        transactionObserver = observer
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_commit_hook(handle, { context in
            guard let context else { return 0 }
            let database = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
            return database.transactionObserver?.hasUnwrittenChanges == true ? 1 : 0
        }, context)
        sqlite3_rollback_hook(handle, { context in
            guard let context else { return }
            Unmanaged<Database>.fromOpaque(context).takeUnretainedValue().transactionObserver?.transactionDidRollBack()
        }, context)
    }
}
