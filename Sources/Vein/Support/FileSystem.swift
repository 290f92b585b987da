import Foundation

/// File-system steps that crash safety depends on.
package enum FileSystem {
    /// The absolute, symlink-free path of a file that may not exist yet (its directory must exist).
    /// Keyring items are addressed by this path, so the same store is found however it is named.
    package static func realPath(_ path: String) throws -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let (directory, name) = splitPath(path)
        guard let dir = realpath(directory, nil) else {
            throw FileError.cannotWrite(path, reason: "directory \(directory) does not exist")
        }
        defer { free(dir) }
        let base = String(cString: dir)
        return (base == "/" ? "" : base) + "/" + name
    }

    /// `path` split at its last slash, as the kernel reads it: the directory that holds the entry (absolute,
    /// the current directory put in front of a relative path) and the entry's name. The directory is kept
    /// as written: in `a/link/../b`, `..` is the parent of wherever `link` leads, which only the kernel
    /// knows. (URL's path handling drops `link/..` as text, and names another directory when `link` is a
    /// symbolic link.) Trailing slashes are not part of the name.
    package static func splitPath(_ path: String) -> (directory: String, name: String) {
        var whole = Substring(path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
        while whole.count > 1, whole.hasSuffix("/") { whole = whole.dropLast() }
        guard let slash = whole.lastIndex(of: "/"), slash != whole.startIndex else { return ("/", String(whole.drop { $0 == "/" })) }
        return (String(whole[..<slash]), String(whole[whole.index(after: slash)...]))
    }

    /// fsyncs the directory holding `path`, making a create, link or rename in it durable. A failure names
    /// `path`, the file the user asked for, not its directory.
    package static func syncDirectory(containing path: String) throws {
        let directory = splitPath(path).directory
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.cannotWrite(directory, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard FileCalls.syncDirectory(fd, path: directory.isEmpty ? "." : directory) == 0 else {
            throw writeError(path, errno, step: "syncing its directory")
        }
    }

    /// Writes all of `bytes` to `descriptor`, retrying short writes and EINTR.
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws {
        try bytes.withUnsafeBytes { try writeAll(descriptor, $0, path: path) }
    }

    /// Writes all of `bytes` (a buffer the caller may wipe afterwards: key material never becomes an array).
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = FileCalls.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset, path: path)
            if n < 0 {
                if errno == EINTR { continue }
                throw writeError(path, errno)
            }
            offset += n
        }
    }

    /// The error for a failed file operation on `path`: a reader that went away (EPIPE) ends output
    /// quietly; a place where the file cannot be made (no directory, no permission, no hard links there)
    /// is "cannot write" (exit 73); a failure while writing it (a full disk, an I/O error) is a write
    /// failure (exit 74). `step` names what failed when it was not the writing itself.
    package static func writeError(_ path: String, _ code: Int32, creating: Bool = false, step: String? = nil) -> FileError {
        let reason = String(cString: strerror(code)) + (step.map { " (\($0))" } ?? "")
        switch code {
        case EPIPE: return .outputClosed(path)
        case ENOSPC, EDQUOT, EIO, EFBIG: return .writeFailed(path, reason: reason)
        case EACCES, EPERM, ENOENT, ENOTDIR, EISDIR, EROFS, EXDEV, EMLINK, ENAMETOOLONG, ELOOP:
            return .cannotWrite(path, reason: reason)
        default: return creating ? .cannotWrite(path, reason: reason) : .writeFailed(path, reason: reason)
        }
    }

    /// An exclusive advisory lock (flock) on a directory, held until `unlock`.
    package struct DirectoryLock {
        let fd: Int32
        package func unlock() {
            flock(fd, LOCK_UN)
            close(fd)
        }
    }

    /// Locks the directory holding `path`, waiting for any other holder (another vein creating there).
    package static func lockDirectory(containing path: String) throws -> DirectoryLock {
        let directory = splitPath(path).directory
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.cannotWrite(directory, reason: String(cString: strerror(errno))) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        return DirectoryLock(fd: fd)
    }

    /// Takes the writer lock of a folder: a `flock` on the file `lockPath` (made when missing), without
    /// waiting. Nil when another process holds it.
    static func tryLock(_ lockPath: String) throws -> DirectoryLock? {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw writeError(lockPath, errno, creating: true) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        return DirectoryLock(fd: fd)
    }

    package static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The permission bits of `path` (0 when it cannot be stat'ed).
    package static func mode(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_mode) & 0o7777 : 0
    }

    package static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Removes a SQLite database file and its journal companions; for cleaning up after a failed create.
    package static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { _ = FileCalls.unlink(path + suffix) }
    }

    /// Whether another process has the SQLite database at `path` open in WAL mode. Every such connection
    /// holds a shared POSIX lock on the "DMS" byte of the `-shm` file (offset 128: SQLite's UNIX_SHM_DMS)
    /// for as long as it is open; F_GETLK reports it. Call it before this process opens the database:
    /// closing the descriptor used here would drop this process's own SQLite locks on that file.
    package static func otherProcessHasSQLiteOpen(_ path: String) throws -> Bool {
        let fd = open(path + "-shm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }  // no -shm: no connection in WAL mode
        defer { close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(fd, F_GETLK, &lock) == 0 else { throw FileError.unreadable(path + "-shm", reason: String(cString: strerror(errno))) }
        return lock.l_type != Int16(F_UNLCK)
    }
}
