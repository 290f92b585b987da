import Foundation

/// How a store file may be opened by this user, decided before SQLite touches it.
///
/// A WAL database needs its -wal and -shm files, which SQLite creates beside it with the store file's
/// own mode. A store that is not writable (mode 0444) opened by SQLite, even read-only, leaves a 0444
/// -wal and -shm that every later connection then fails to open; in a read-only directory it cannot
/// create them and cannot read at all. So: a write to a store we cannot write is refused before
/// SQLite runs, and a read of one opens it immutable when nothing can change it.
enum StoreAccess {
    static func openMode(_ path: String, info: stat, requested: Database.OpenMode) throws -> Database.OpenMode {
        guard requested == .readWrite || requested == .readOnly else { return requested }
        // By hand: NSString.deletingLastPathComponent traps on a one-character name ("k") in
        // swift-corelibs-foundation.
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let wal = path + "-wal"
        let walExists = FileSystem.fileExists(wal), shmExists = FileSystem.fileExists(path + "-shm")
        let fileWritable = access(path, W_OK) == 0
        let fileError = fileWritable ? 0 : errno
        let folderWritable = access(folder, W_OK) == 0
        // A -wal or -shm this user cannot write (left with mode 0444 by an earlier read of a 0444 store)
        // fails every read-write connection with "unable to open database file".
        // One that another process's last connection removes meanwhile (ENOENT) is no obstacle: SQLite makes
        // it anew.
        let lockedCompanion = [wal, path + "-shm"].first { FileSystem.fileExists($0) && access($0, W_OK) != 0 && errno != ENOENT }
        // Without a writable directory SQLite can still use -wal and -shm files that exist already.
        // A store we may write is opened read-write even to read (`Store.open` then refuses writes with
        // query_only): only such a connection, the last to close, checkpoints and removes -wal and -shm,
        // leaving one self-contained file.
        if fileWritable && lockedCompanion == nil && (folderWritable || (walExists && shmExists)) { return .readWrite }

        if requested == .readWrite {
            let reason = !fileWritable
                ? (fileError == EROFS ? "read-only file system" : "mode " + String(format: "%04o", Int(info.st_mode) & 0o7777))
                : lockedCompanion.map { "\($0) is not writable (mode " + String(format: "%04o", FileSystem.mode($0)) + ")" }
                    ?? "its directory \(folder) is not writable"
            throw StoreError.readOnly(path, reason: reason)
        }
        // Immutable only when no process can change the file while we read it: nobody may write it (no
        // write bit, or a read-only file system), or, with no -wal to write into, nobody may create one.
        var folderInfo = stat()
        let folderFrozen = stat(folder, &folderInfo) == 0 && folderInfo.st_mode & 0o222 == 0
        let fileFrozen = info.st_mode & 0o222 == 0 || fileError == EROFS
        let walEmpty = !walExists || FileSystem.fileSize(wal) == 0
        if walEmpty && (fileFrozen || (!walExists && folderFrozen)) { return .immutable }
        return .readOnly
    }
}
