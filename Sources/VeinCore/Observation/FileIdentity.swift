#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path names now (device and inode): a rename over the path makes it another one.
struct FileIdentity: Equatable, Sendable {
    let path: String
    let device: UInt64
    let inode: UInt64

    /// Nil when nothing is at `path`.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.path = path
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
