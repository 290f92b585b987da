import Foundation

/// Retired key files: a key a rotation replaced or moved elsewhere stays on disk as `FILE.retired-DATE`
/// beside the file (DATE in UTC, `20260131T120000Z`), mode 0600 like every key file. Backups and copies made
/// before the rotation open with it; vein never deletes it.
extension KeyFile {
    static let retiredMarker = ".retired-"

    /// Keeps the key in `path` as `FILE.retired-DATE` beside the file it names (a symbolic link's target):
    /// with `keepingName` as a second name (the file is about to be replaced by a new key), otherwise by
    /// renaming it (the store's key moved elsewhere, and FILE no longer opens it). Nothing is done when a
    /// retired copy beside it holds the same key already (a rotation finishing one that a crash stopped).
    /// Durable before it returns. Returns the retired file's path, or nil when nothing was done.
    @discardableResult
    package static func retire(_ path: String, at date: Date, keepingName: Bool) throws -> String? {
        let file = try StagedFile.replaceablePath(path)
        let key = try? read(file)
        if let key, retiredCopies(of: file).contains(where: { (try? read($0.path)) == key }) {
            if !keepingName {
                guard FileCalls.unlink(file) == 0 else { throw FileSystem.writeError(file, errno) }
                try FileSystem.syncDirectory(containing: file)
            }
            return nil
        }
        let stamp = name(date)
        for attempt in 0..<100 {
            let retired = file + retiredMarker + stamp + (attempt == 0 ? "" : "-\(attempt)")
            // link(2) never replaces a file: another retirement in the same second gets the next name.
            guard FileCalls.link(file, retired) == 0 else {
                if errno == EEXIST { continue }
                throw FileSystem.writeError(retired, errno, creating: true)
            }
            if !keepingName { guard FileCalls.unlink(file) == 0 else { throw FileSystem.writeError(file, errno) } }
            try FileSystem.syncDirectory(containing: file)
            return retired
        }
        throw FileError.cannotWrite(file + retiredMarker + stamp, reason: "too many key files retired in the same second")
    }

    /// The retired copies of the key file `path` (of the file a symbolic link names, even a dangling one),
    /// oldest first, with when each was retired (ISO 8601).
    package static func retiredCopies(of path: String) -> [(path: String, retiredAt: String)] {
        // Named as the user named the file: relative stays relative.
        let file = linkTarget(path) ?? path
        let (directory, name) = split(file)
        let prefix = name + retiredMarker
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.sorted().compactMap { name in
            guard let retiredAt = timestamp(String(name.dropFirst(prefix.count).prefix(16))) else { return nil }
            return ((directory.isEmpty ? "" : directory.hasSuffix("/") ? directory : directory + "/") + name, retiredAt)
        }
    }

    /// `20260131T120000Z` for a date.
    private static func name(_ date: Date) -> String {
        RetiredKey.timestamp(date).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }

    /// `2026-01-31T12:00:00Z` from `20260131T120000Z`.
    private static func timestamp(_ stamp: String) -> String? {
        let c = Array(stamp)
        guard c.count == 16, c[8] == "T", c[15] == "Z", (c[0..<8] + c[9..<15]).allSatisfy(\.isNumber) else { return nil }
        let s = String(c)
        func part(_ from: Int, _ count: Int) -> Substring { s.dropFirst(from).prefix(count) }
        return "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(9, 2)):\(part(11, 2)):\(part(13, 2))Z"
    }

    /// "dir/sub" and "k" of "dir/sub/k"; "" and "k" of "k". (NSString's deletingLastPathComponent traps on
    /// some one-letter names in this Foundation.)
    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// The path a symbolic link names (resolved against its directory), even when nothing is there; nil for
    /// anything that is not a symbolic link.
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = split(path).directory
        return target.hasPrefix("/") || directory.isEmpty ? target : (directory.hasSuffix("/") ? directory : directory + "/") + target
    }
}
