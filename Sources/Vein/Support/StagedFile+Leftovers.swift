import Foundation

/// Removing what killed processes left of `StagedFile` temporaries (and of SQLite's journals beside them).
///
/// Only what is certainly Vein's and certainly dead goes: a name of the form `.NAME.TAG-ULID` (or the
/// `NAME.TAG-ULID` older versions wrote), a regular file (never a link, a FIFO, a device or a directory)
/// owned by this user, which no process holds locked (its writer's lock goes with the process). A user's
/// `blog.vein.writing-notes`, another user's file, or a FIFO that would block the open all stay.
extension StagedFile {
    /// Removes temporaries of `target` with `tag` that a killed process left (and their SQLite journals);
    /// one still being written is locked and stays. Also takes the names older versions used (`NAME.TAG-…`).
    package static func removeLeftovers(of target: String, tag: String) {
        removeLeftovers(of: target, tags: [tag])
    }

    /// Removes what killed processes left of temporaries of `target` of every kind (`Tag`): the next command
    /// on a store or key file cleans up after any command that was killed while writing beside it.
    package static func removeLeftovers(of target: String) {
        removeLeftovers(of: target, tags: Tag.allCases.map(\.rawValue))
    }

    /// Removes what killed processes left of temporaries with `tag` of any file in `directory` (names
    /// `.NAME.TAG-ULID`): a backup to a new name each night cleans up after one killed the night before.
    package static func removeLeftovers(in directory: String, tag: String) {
        let marker = "." + tag + "-"
        removeLeftovers(in: directory) { name in
            guard name.hasPrefix("."), let range = name.range(of: marker, options: .backwards) else { return false }
            return ULID(String(name[range.upperBound...])) != nil
        }
    }

    private static func removeLeftovers(of target: String, tags: [String]) {
        let (directory, name) = FileSystem.splitPath(target)
        let prefixes: [String] = tags.flatMap { tag -> [String] in ["." + name + "." + tag + "-", name + "." + tag + "-"] }
        removeLeftovers(in: directory) { candidate in
            prefixes.contains { candidate.hasPrefix($0) && ULID(String(candidate.dropFirst($0.count))) != nil }
        }
    }

    /// A temporary is a leftover when no process holds its lock (its writer is gone: the lock goes with the
    /// process); a SQLite journal of a temporary is one when the temporary itself is gone (a process killed
    /// while removing them). This process's own temporaries are never touched: opening and closing a file
    /// would drop the locks SQLite holds on it.
    private static func removeLeftovers(in directory: String, matching isTemporary: (String) -> Bool) {
        let directory = directory.isEmpty ? "." : directory
        let companions = ["-wal", "-shm", "-journal"]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names {
            let path = directory + "/" + name
            if let companion = companions.first(where: name.hasSuffix), isTemporary(String(name.dropLast(companion.count))) {
                let main = String(path.dropLast(companion.count))
                if !FileSystem.fileExists(main) && !TemporaryFiles.isRegistered(main) && isOwnRegularFile(path) { _ = FileCalls.unlink(path) }
                continue
            }
            guard isTemporary(name), !TemporaryFiles.isRegistered(path), isOwnRegularFile(path) else { continue }
            // Non-blocking: should the name be swapped for a FIFO after the check, the open must not wait.
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // Locked, and still the file the name gives (not one swapped in meanwhile): then it is dead.
            if flock(fd, LOCK_EX | LOCK_NB) == 0, FileLocation.Node.opened(fd) == FileLocation.Node.named(path), isOwnRegularFile(path) {
                FileSystem.removeDatabaseFiles(path)
            }
        }
    }

    /// Whether `path` itself (a symbolic link is not followed) is a regular file this user owns: what Vein
    /// writes as a temporary, and nothing else.
    private static func isOwnRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_uid == geteuid()
    }
}
