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
}

package enum FileInput {
    /// Reads a whole UTF-8 text file, or `-` for standard input.
    package static func readText(_ path: String) throws(FileError) -> String {
        let data: Data
        if path == "-" {
            data = try readAll(STDIN_FILENO, path: path)
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .notFound(path) }
            if isDirectory.boolValue { throw .unreadable(path, reason: "it is a directory") }
            let descriptor = try openForStreaming(path)
            defer { close(descriptor) }
            data = try readAll(descriptor, path: path)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .notText(path) }
        return text
    }

    /// Everything `descriptor` gives until end of file, read in chunks. Works for what has no size to map
    /// or read at once — a pipe, a FIFO, `/dev/stdin`, `<(cat m.json5)` — on which Foundation's
    /// whole-file reads fail with "Inappropriate ioctl for device".
    package static func readAll(_ descriptor: Int32, path: String) throws(FileError) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path, reason: String(cString: strerror(errno)))
            }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// A descriptor to stream `path` from (`-` is standard input, which the caller must not close).
    package static func openForStreaming(_ path: String) throws(FileError) -> Int32 {
        if path == "-" { return STDIN_FILENO }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw errno == ENOENT ? .notFound(path) : .unreadable(path, reason: String(cString: strerror(errno)))
        }
        return descriptor
    }
}
