import Foundation

/// A file the user named could not be read or written.
package enum FileError: Error, Equatable, Sendable {
    case notFound(String)
    case unreadable(String, reason: String)
    case notText(String)
    /// It cannot be created (its directory is missing, no permission, it is a directory).
    case cannotWrite(String, reason: String)
    /// Writing to it failed (a full disk, an I/O error): nothing was put in place.
    case writeFailed(String, reason: String)
    /// It appeared while it was being made (link(2) refuses to replace it).
    case alreadyExists(String)
    /// The reader of an output pipe went away (EPIPE).
    case outputClosed(String)
    /// It is longer than a file of its kind can be (`FileInput.maxTextBytes`): read no further.
    case tooLarge(String, limit: Int)
}

/// How vein reads every file a user names (manifests, plans, import files, `--fixture`, the REPL's
/// `.read`): a regular file, or a pipe (a FIFO, `-` for standard input, `/dev/stdin`, `<(…)`). A
/// directory or a device where a file is expected is refused (exit 66), never read: `/dev/zero` would
/// never end. Text read whole is at most `maxTextBytes`; what streams (an import) has its own limits.
package enum FileInput {
    /// The most a text file read whole may hold (a manifest or a plan is a few KiB).
    package static let maxTextBytes = 64 << 20

    /// Reads a whole UTF-8 text file, or `-` for standard input.
    package static func readText(_ path: String) throws(FileError) -> String {
        let descriptor = try openForStreaming(path)
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let data = try readAll(descriptor, path: path, limit: maxTextBytes)
        guard let text = String(data: data, encoding: .utf8) else { throw .notText(path) }
        return text
    }

    /// Everything `descriptor` gives until end of file, read in chunks, or `tooLarge` once it passes
    /// `limit` bytes. Works for what has no size to map or read at once — a pipe, a FIFO, `/dev/stdin`,
    /// `<(cat m.json5)` — on which Foundation's whole-file reads fail with "Inappropriate ioctl for device".
    package static func readAll(_ descriptor: Int32, path: String, limit: Int = .max) throws(FileError) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path, reason: String(cString: strerror(errno)))
            }
            guard count <= limit - data.count else { throw .tooLarge(path, limit: limit) }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// Refuses a regular file whose first bytes are not text (a store, a binary) with `notText`, before a
    /// parser reports the first byte as a syntax error: the caller names the file it wanted. Reads with
    /// `pread`, so a stream's position is untouched; a pipe is left to the parser.
    package static func requireTextStart(_ descriptor: Int32, path: String) throws(FileError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return }
        var sample = [UInt8](repeating: 0, count: TextContent.sampleSize)
        let count = sample.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return }
        if TextContent.of(Array(sample[..<count]), cut: Int64(count) < Int64(info.st_size)) == nil { throw .notText(path) }
    }

    /// A descriptor to stream `path` from (`-` is standard input, which the caller must not close): a
    /// regular file or a pipe; a directory or a device is refused with `unreadable` before any read.
    package static func openForStreaming(_ path: String) throws(FileError) -> Int32 {
        if path == "-" { return STDIN_FILENO }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw errno == ENOENT ? .notFound(path) : .unreadable(path, reason: String(cString: strerror(errno)))
        }
        var info = stat()
        let kind: String?
        if fstat(descriptor, &info) != 0 {
            kind = String(cString: strerror(errno))
        } else {
            switch info.st_mode & S_IFMT {
            case S_IFDIR: kind = "it is a directory"
            case S_IFCHR, S_IFBLK: kind = "it is a device, not a file"
            default: kind = nil
            }
        }
        if let kind {
            close(descriptor)
            throw .unreadable(path, reason: kind)
        }
        return descriptor
    }
}
