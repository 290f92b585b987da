import Foundation

/// Key files: a raw 64-hex key or a passphrase, on one line, readable by their owner only.
public enum KeyFile {
    /// Reads a key file, refusing one that group or others can read or write (as ssh does for private keys).
    public static func read(_ path: String) throws -> CipherKey {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw KeyError.keyFileUnreadable(path: path, reason: "no such file") }
            throw KeyError.keyFileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw KeyError.keyFileUnreadable(path: path, reason: "not a regular file") }
        let mode = UInt16(info.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw KeyError.keyFileTooOpen(path: path, mode: mode) }
        KeyMemory.keepOutOfCoreDumps()
        guard var data = FileManager.default.contents(atPath: path) else {
            throw KeyError.keyFileUnreadable(path: path, reason: "cannot read it as UTF-8 text")
        }
        defer { KeyMemory.wipe(&data) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeyError.keyFileUnreadable(path: path, reason: "cannot read it as UTF-8 text")
        }
        return try CipherKey(text: text)
    }

    /// Writes a new key file with mode 0600, refusing to replace an existing file. The data is synced
    /// before returning, so a store created with this key never outlives its key file in a crash.
    public static func create(_ path: String, key: CipherKey) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { throw KeyError.keyFileExists(path: path) }
            throw FileError.cannotWrite(path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        // The key's text and a newline, from a buffer that is wiped afterwards.
        let (written, expected) = key.withText(terminatedBy: UInt8(ascii: "\n")) { (write(fd, $0.baseAddress, $0.count), $0.count) }
        guard written == expected, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw FileError.cannotWrite(path, reason: reason)
        }
        try FileSystem.syncDirectory(containing: path)
    }

    /// Where a rotation records the new key before the store changes: next to the key file.
    public static func pendingPath(for path: String) -> String { path + ".pending" }

    /// Replaces (or creates) `path` with `key` atomically: written to a temporary file 0600, synced, then
    /// renamed over `path`. Readers see the old key or the new one, never a part.
    public static func replace(_ path: String, key: CipherKey) throws {
        let temporary = path + ".writing-\(ULID.make())"
        try create(temporary, key: key)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileError.cannotWrite(path, reason: reason)
        }
        try FileSystem.syncDirectory(containing: path)
    }
}
