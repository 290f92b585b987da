import Foundation

/// Where a path leads, by device and inode rather than by spelling: `b.vein`, `./b.vein`, a symbolic link to
/// it and a hard link to it all lead to the same file. A path that names nothing yet still has a place (a
/// name in a directory), which a write would create: two paths that would create the same file have the
/// same place, so a file that does not exist yet (a store's `-wal` between sessions) can be recognised too.
package struct FileLocation: Equatable, Sendable {
    /// A file system object: device and inode.
    package struct Node: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }

        /// The object `path` itself names (a symbolic link is not followed); nil when there is none.
        static func named(_ path: String) -> Node? {
            var info = stat()
            return lstat(path, &info) == 0 ? Node(info) : nil
        }

        /// The object an open descriptor refers to.
        static func opened(_ descriptor: Int32) -> Node? {
            var info = stat()
            return fstat(descriptor, &info) == 0 ? Node(info) : nil
        }
    }

    /// The file the path names, symbolic links followed; nil when there is none.
    package let file: Node?
    /// The directory entry the path finally names (its directory's node and the name in it), following
    /// symbolic links, even one that points at nothing; nil when that directory does not exist.
    package let entry: Entry?

    package struct Entry: Hashable, Sendable {
        let directory: Node
        let name: String
    }

    /// Symbolic links followed before giving up, as the kernel's ELOOP limit does.
    static let linkLimit = 40

    package init(_ path: String) {
        var info = stat()
        file = stat(path, &info) == 0 ? Node(info) : nil
        entry = Self.finalEntry(path)
    }

    /// The file an open descriptor writes to (standard output redirected to a file, say).
    package init(descriptor: Int32) {
        var info = stat()
        file = fstat(descriptor, &info) == 0 ? Node(info) : nil
        entry = nil
    }

    /// Whether a write to one of the two paths would reach the other's file.
    package func isSameFile(as other: FileLocation) -> Bool {
        if let file, file == other.file { return true }
        if let entry, entry == other.entry { return true }
        return false
    }

    /// The directory entry `path` leads to: realpath(3) for a path that resolves, otherwise each dangling
    /// symbolic link is read and followed by hand to the name it would create.
    private static func finalEntry(_ path: String) -> Entry? {
        var current = path
        for _ in 0..<linkLimit {
            if let resolved = realpath(current, nil) {
                defer { free(resolved) }
                return entry(resolvedPath: String(cString: resolved))
            }
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else {
                return entry(resolvedPath: current)
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return nil }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : FileSystem.splitPath(current).directory + "/" + target
        }
        return nil
    }

    /// The entry of `path` in its directory, whose node stat(2) gives (following links on the way to it, and
    /// taking `..` after them as the kernel does).
    private static func entry(resolvedPath path: String) -> Entry? {
        let (directory, name) = FileSystem.splitPath(path)
        var info = stat()
        guard stat(directory, &info) == 0 else { return nil }
        return Entry(directory: Node(info), name: name)
    }
}
