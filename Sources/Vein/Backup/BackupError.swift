/// What can go wrong taking, checking or restoring a continuous backup (docs/backup.md). Every case that
/// concerns a file names it: a cron job's log must say which segment to look at.
package enum BackupError: Error, Equatable, Sendable {
    /// A file of the backup is not what was sealed, or not where its chain says: nothing past it is applied.
    case damaged(file: String, reason: String)
    /// A sealed file was made with another key than the one given (`source`: where that key came from).
    case wrongKey(file: String, source: String)
    /// The folder holds files that are not a Vein backup's, or a backup of another store.
    case notABackup(String, reason: String)
    case anotherStore(String, store: String)
    /// Continuous backups send the change log; this store keeps none.
    case noChangeLog(String)
    /// Another process is writing to the backup folder.
    case busy(String)
    /// No key for the backup was found (none given, none in the keyring, and the store's key was not given).
    case noKey(String)
    /// A key file that does not hold a 256-bit raw key.
    case notABackupKey
    /// Nothing in the backup is as old as the moment asked for.
    case nothingBefore(String, oldest: String)
    /// The backup holds no snapshot yet.
    case empty(String)
    /// A pass's new snapshot still left it wanting another: a fault in Vein, stopped rather than repeated.
    case snapshotNotTaken(String, reason: String)
    /// OpenSSL refused an operation it should not refuse.
    case cryptoFailed(String)
    /// A wrapped key's passphrase does not open it.
    case wrongPassphrase(String)

    package var message: String {
        switch self {
        case .damaged(let file, let reason): return "\(file) is damaged: \(reason)"
        case .wrongKey(let file, let source): return "\(file) was sealed with another key than the one from \(source)"
        case .notABackup(let path, let reason): return "\(path) is not a Vein backup: \(reason)"
        case .anotherStore(let path, let store): return "\(path) holds the backup of another store than \(store)"
        case .noChangeLog(let path): return "\(path) keeps no change log, which continuous backups send"
        case .busy(let path): return "another process is writing to the backup \(path)"
        case .noKey(let path): return "no key for the backup \(path)"
        case .notABackupKey: return "a backup key is 64 hex digits (a raw 256-bit key)"
        case .nothingBefore(let path, let oldest): return "\(path) holds nothing that early: its oldest snapshot is of \(oldest)"
        case .empty(let path): return "\(path) holds no snapshot yet"
        case .cryptoFailed(let what): return "OpenSSL failed: \(what)"
        case .snapshotNotTaken(let path, let reason):
            return "the backup \(path) stopped: right after a new snapshot it would take another (\(reason)); nothing more was written"
        case .wrongPassphrase(let path): return "the passphrase does not open the backup key in \(path)"
        }
    }
}
