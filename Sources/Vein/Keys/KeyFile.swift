import Foundation

/// Key files: a raw 64-hex key or a passphrase, on one line, readable by their owner only.
package enum KeyFile {
    /// Reads a key file, refusing one that group or others can read or write (as ssh does for private keys).
    package static func read(_ path: String) throws -> CipherKey {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT {
                if let retired = retiredCopies(of: path).last {
                    throw KeyError.keyFileRetired(path: path, retiredAs: retired.path, retiredAt: retired.retiredAt)
                }
                throw KeyError.keyFileUnreadable(path: path, reason: "no such file")
            }
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

    /// Names of key files being written: `.NAME.writing-ULID` beside NAME.
    static let temporaryTag = StagedFile.Tag.writing.rawValue

    /// Writes a new key file with mode 0600, refusing to replace an existing file. It appears whole (written
    /// under a temporary name, synced, linked into place), and is durable before returning, so a store
    /// created with this key never outlives its key file in a crash.
    package static func create(_ path: String, key: CipherKey) throws {
        let staged = try stage(path, key: key, placement: .create)
        do {
            try staged.place()
        } catch FileError.alreadyExists {
            staged.discard()
            throw KeyError.keyFileExists(path: path)
        } catch {
            staged.discard()
            throw error
        }
        do {
            try staged.syncDirectory()
        } catch {
            _ = FileCalls.unlink(path)
            throw error
        }
    }

    /// Removes what killed processes left while writing the key file `path` or its pending key (beside the
    /// file a symbolic link names, where they are written).
    package static func removeLeftovers(of path: String) {
        for file in [path, pendingPath(for: path)] {
            StagedFile.removeLeftovers(of: (try? StagedFile.replaceablePath(file)) ?? file, tag: temporaryTag)
        }
    }

    /// Where a rotation records the new key before the store changes: next to the key file.
    package static func pendingPath(for path: String) -> String { path + ".pending" }

    /// Replaces (or creates) `path` with `key` atomically: written to a temporary file 0600, synced, then
    /// renamed over `path`. Readers see the old key or the new one, never a part. The file stays 0600
    /// whatever the mode of the one it replaces (others must never read a key); its owner and group stay.
    /// A symbolic link (to a secrets mount, say) stays; the file it names is replaced.
    package static func replace(_ path: String, key: CipherKey) throws {
        let staged = try stage(try StagedFile.replaceablePath(path), key: key, placement: .replace)
        do {
            try staged.place()
        } catch {
            staged.discard()
            throw error
        }
        try staged.syncDirectory()
    }

    private static func stage(_ path: String, key: CipherKey, placement: StagedFile.Placement) throws -> StagedFile {
        let staged = try StagedFile(target: path, tag: temporaryTag, mode: 0o600, keepsMode: false, placement: placement)
        do {
            // The key's text and a newline, from a buffer that is wiped afterwards.
            try key.withText(terminatedBy: UInt8(ascii: "\n")) { try FileSystem.writeAll(staged.descriptor, $0, path: path) }
        } catch {
            staged.discard()
            throw error
        }
        return staged
    }
}
