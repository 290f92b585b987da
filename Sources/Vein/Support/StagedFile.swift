import Foundation

/// A file built under a temporary name next to its target and put into place only when whole: the one way
/// Vein writes a file that must appear complete or not at all (stores, copies, key files, exports;
/// ARCHITECTURE.md I13).
///
/// Every step's result is checked: the temporary is created with O_EXCL in the target's directory (so the
/// final link or rename stays on one file system), filled by the caller, fsynced, given the replaced file's
/// mode, owner and group, closed, linked or renamed into place, and the directory is fsynced. Until
/// `place` succeeds a failure leaves the target as it was; `discard` removes the temporary (and any SQLite
/// journal beside it). While it exists the temporary is flock'ed, so `removeLeftovers` can tell a file a
/// killed process left behind from one still being written, and it is removed when SIGTERM or SIGINT ends
/// the process (`TemporaryFiles`).
package final class StagedFile {
    package enum Placement: Sendable {
        /// link(2), which fails when the target exists: a new store or key file never replaces anything.
        case create
        /// rename(2) over the target when it is a regular file (never over anything else), or creates it.
        case replace
    }

    package let target: String
    package let temporary: String
    package let placement: Placement
    /// The temporary's descriptor, open for writing until `place`.
    package private(set) var descriptor: Int32
    private let keepsMode: Bool
    private var lockDescriptor: Int32 = -1
    /// Placed or discarded: nothing more to do.
    private var finished = false

    /// Creates the temporary `.NAME.TAG-ULID` beside `target` with `mode`. With `keepsMode` false the
    /// file keeps `mode` even when it replaces one with another mode (key files stay 0600). `beforeLocking`
    /// is a test's way into the moment between the temporary's creation and its lock.
    package init(target: String, tag: String, mode: mode_t, keepsMode: Bool = true, placement: Placement,
                 beforeLocking: ((String) -> Void)? = nil) throws {
        self.target = target
        self.placement = placement
        self.keepsMode = keepsMode
        (temporary, descriptor, lockDescriptor) = try Self.createLocked(beside: target, tag: tag, mode: mode, beforeLocking: beforeLocking)
    }

    /// New names tried when another process's cleanup takes each new temporary before it is locked.
    private static let creationAttempts = 8

    /// Creates `.NAME.TAG-ULID` beside `target`, open for writing, and a second descriptor holding its lock.
    ///
    /// The lock marks the temporary as in use for `removeLeftovers` until it is placed or discarded. A
    /// descriptor of its own (read-only, so closing it can lose nothing) holds it past the close of the
    /// written one, whose result is checked before the file is put in place. Until the lock is taken the new
    /// file looks like one a killed writer left, and another process's `removeLeftovers` may remove it; then
    /// the name no longer gives the locked file, and the file is made again under a new name.
    private static func createLocked(beside target: String, tag: String, mode: mode_t,
                                     beforeLocking: ((String) -> Void)?) throws -> (String, Int32, Int32) {
        let (directory, name) = FileSystem.splitPath(target)
        for _ in 0..<creationAttempts {
            let temporary = directory + "/." + name + "." + tag + "-" + ULID.make().description
            TemporaryFiles.register(temporary)
            let fd = FileCalls.create(temporary, flags: O_RDWR | O_EXCL | O_CLOEXEC, mode: mode)
            guard fd >= 0 else {
                let code = errno
                TemporaryFiles.unregister(temporary)
                throw FileSystem.writeError(target, code, creating: true)
            }
            let lock = open(temporary, O_RDONLY | O_CLOEXEC)
            if lock >= 0 { beforeLocking?(temporary) }
            guard lock >= 0, flock(lock, LOCK_EX) == 0 else {
                let code = errno
                if lock >= 0 { close(lock) }
                close(fd)
                TemporaryFiles.unregister(temporary)
                if code == ENOENT { continue }  // removed before it could be opened again
                _ = FileCalls.unlink(temporary)
                throw FileSystem.writeError(target, code, creating: true)
            }
            if FileLocation.Node.opened(lock) == FileLocation.Node.named(temporary) { return (temporary, fd, lock) }
            // Removed before it was locked: the name is gone (or another file's), so it is left alone.
            close(lock)
            close(fd)
            TemporaryFiles.unregister(temporary)
        }
        throw FileError.cannotWrite(target, reason: "each new temporary file beside it was removed before it could be locked")
    }

    deinit {
        if !finished { discard() }
    }

    /// Writes all of `bytes` to the temporary.
    package func write(_ bytes: [UInt8]) throws {
        try FileSystem.writeAll(descriptor, bytes, path: target)
    }

    /// Syncs the temporary, gives it the attributes of the file it replaces, and links or renames it into
    /// place. Throws with the target untouched; once it returns the target is the new file and the
    /// temporary name is gone. Any SQLite connection to the temporary must be closed (checkpointed) first.
    package func place() throws {
        precondition(!finished, "a staged file is placed once")
        for journal in ["-wal", "-journal"] where FileSystem.fileSize(temporary + journal) > 0 {
            throw FileError.writeFailed(target, reason: "the new file's \(journal.dropFirst()) was not merged into it")
        }
        // SQLite leaves an empty -wal and the -shm behind when its last close cannot lock the file to remove
        // them. They hold nothing, and once the temporary name is gone nothing would ever remove them.
        for companion in ["-wal", "-shm", "-journal"] where FileSystem.fileExists(temporary + companion) {
            _ = FileCalls.unlink(temporary + companion)
        }
        guard FileCalls.sync(descriptor, path: temporary) == 0 else { throw FileSystem.writeError(target, errno) }
        if placement == .replace { try takeAttributesOfTarget() }
        let fd = descriptor
        descriptor = -1
        guard FileCalls.close(fd, path: temporary) == 0 else { throw FileSystem.writeError(target, errno) }
        defer {
            if finished {
                close(lockDescriptor)
                lockDescriptor = -1
            }
        }
        switch placement {
        case .create:
            guard FileCalls.link(temporary, target) == 0 else {
                let code = errno
                if code == EEXIST { throw FileError.alreadyExists(target) }
                throw FileSystem.writeError(target, code)
            }
            // The target is in place; the temporary name is only a second link to it. Should removing it
            // fail, the next removeLeftovers takes it (it is no longer locked).
            _ = FileCalls.unlink(temporary)
        case .replace:
            guard FileCalls.rename(temporary, target) == 0 else {
                throw FileSystem.writeError(target, errno)
            }
        }
        finished = true
        TemporaryFiles.unregister(temporary)
    }

    /// Makes the link or rename done by `place` durable.
    package func syncDirectory() throws {
        try FileSystem.syncDirectory(containing: target)
    }

    /// `place`, then `syncDirectory`.
    package func commit() throws {
        try place()
        try syncDirectory()
    }

    /// Removes the temporary and any journal SQLite left beside it; the target is untouched.
    package func discard() {
        guard !finished else { return }
        finished = true
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        FileSystem.removeDatabaseFiles(temporary)
        if lockDescriptor >= 0 { close(lockDescriptor) }
        lockDescriptor = -1
        TemporaryFiles.unregister(temporary)
    }

    /// A replaced file keeps its mode, owner and group: a store shared by a group stays readable to it.
    /// Only a regular file is ever replaced (never /dev/null, a FIFO or a directory).
    private func takeAttributesOfTarget() throws {
        var info = stat()
        guard lstat(target, &info) == 0 else {
            if errno == ENOENT { return }
            throw FileSystem.writeError(target, errno)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileError.cannotWrite(target, reason: "it is not a regular file") }
        if info.st_uid != geteuid() || info.st_gid != getegid() {
            guard FileCalls.changeOwner(descriptor, info.st_uid, info.st_gid, path: temporary) == 0 else {
                throw FileError.cannotWrite(target, reason: "cannot keep its owner \(info.st_uid) and group \(info.st_gid): \(String(cString: strerror(errno)))")
            }
        }
        // After fchown, which clears set-id bits.
        if keepsMode {
            guard FileCalls.changeMode(descriptor, info.st_mode & 0o777, path: temporary) == 0 else { throw FileSystem.writeError(target, errno) }
        }
    }

    /// Writes `body`'s output to `target`. A regular file (or none) is replaced atomically: readers see the
    /// old file or the whole new one; a new file gets `mode`, a replaced one keeps its mode, owner and
    /// group; a symbolic link stays and the file it names is replaced. Anything else that exists (a
    /// device such as /dev/null, a FIFO, /dev/stdout on a pipe) is written into, never replaced.
    package static func write<T>(to target: String, mode: mode_t, _ body: (Int32) throws -> T) throws -> T {
        var info = stat()
        if stat(target, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            guard info.st_mode & S_IFMT != S_IFDIR else { throw FileError.cannotWrite(target, reason: "it is a directory") }
            let fd = open(target, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw FileSystem.writeError(target, errno, creating: true) }
            let result: T
            do { result = try body(fd) } catch { close(fd); throw error }
            guard close(fd) == 0 else { throw FileSystem.writeError(target, errno) }
            return result
        }
        let place = try replaceablePath(target)
        removeLeftovers(of: place, tag: Tag.writing.rawValue)
        removeLeftovers(in: FileSystem.splitPath(place).directory, tag: Tag.writing.rawValue)
        let staged = try StagedFile(target: place, tag: Tag.writing.rawValue, mode: mode, placement: .replace)
        do {
            let result = try body(staged.descriptor)
            try staged.place()
            try staged.syncDirectory()
            return result
        } catch {
            staged.discard()
            throw error
        }
    }

    /// The path a replacement of `target` renames onto: `target`, or for a symbolic link the file it names
    /// (the link stays a link, as with a shell's `>`).
    package static func replaceablePath(_ target: String) throws -> String {
        var info = stat()
        guard lstat(target, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return target }
        guard let resolved = realpath(target, nil) else {
            throw FileError.cannotWrite(target, reason: "it is a symbolic link to a file that does not exist")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The tags of every kind of temporary Vein makes (`.NAME.TAG-ULID`): stores being created or rotated,
    /// key files and outputs being written, dry-run copies.
    package enum Tag: String, CaseIterable, Sendable { case creating, rotating, writing, scratch, sealing, restoring }
}
