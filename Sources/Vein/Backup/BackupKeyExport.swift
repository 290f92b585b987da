import Foundation

/// `vein backup export-key`: the key of a backup's newest generation, wrapped under a passphrase, in a new
/// file readable by its owner only (docs/backup.md#keys).
package enum BackupKeyExport {
    package static func write(_ folder: BackupFolder, keys: BackupKeys, to path: String, passphrase: String) throws {
        guard let generation = try folder.completeGenerations().last else { throw BackupError.empty(folder.path) }
        let snapshot = folder.snapshotPath(generation)
        let key = try keys(try SealedFile.header(of: snapshot).keyID, snapshot)
        let text = try WrappedBackupKey.wrap(key, backupID: folder.backupID, passphrase: passphrase)
        let staged = try StagedFile(target: path, tag: StagedFile.Tag.writing.rawValue, mode: 0o600, keepsMode: false, placement: .create)
        defer { staged.discard() }
        try staged.write(Array(text.utf8))
        try staged.commit()
    }
}

extension BackupRestore {
    /// Checks that the last file `store` recorded sending to `folder` is there, unchanged (`verify --store`).
    /// A folder ahead of the record is whole: a run can be stopped between placing a file and recording it.
    package static func compare(_ folder: BackupFolder, with store: Store) throws {
        let recorded = try store.transaction(.deferred) { try BackupProgress.read(backupID: folder.backupID, in: store.database) }
        guard let recorded else { throw BackupError.notABackup(folder.path, reason: "\(store.path) has no record of sending to it") }
        let path = recorded.sequence == 0 ? folder.snapshotPath(recorded.generation) : folder.segmentPath(recorded.generation, recorded.sequence)
        guard FileSystem.fileExists(path) else {
            let newest = try folder.generations().last.map { generation in
                "generation \(generation), " + ((try? folder.segments(of: generation).last).flatMap { $0.map { "segment \($0)" } } ?? "its snapshot")
            } ?? "nothing"
            throw BackupError.damaged(file: path, reason: "it is missing: \(store.path) recorded sending it, and the backup ends at \(newest)")
        }
        guard try SealedFile.digest(of: path) == recorded.digest else {
            throw BackupError.damaged(file: path, reason: "it is not the file \(store.path) recorded sending (its digest differs)")
        }
    }
}
