import Foundation

/// A file the user named could not be read or written.
public enum FileError: Error, Equatable, Sendable {
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

public enum FileInput {
    /// Reads a whole UTF-8 text file, or `-` for standard input.
    public static func readText(_ path: String) throws(FileError) -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .notFound(path) }
            if isDirectory.boolValue { throw .unreadable(path, reason: "it is a directory") }
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw .unreadable(path, reason: String(cString: strerror(errno)))
            }
            data = contents
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .notText(path) }
        return text
    }

    /// A descriptor to stream `path` from (`-` is standard input, which the caller must not close).
    public static func openForStreaming(_ path: String) throws(FileError) -> Int32 {
        if path == "-" { return STDIN_FILENO }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw errno == ENOENT ? .notFound(path) : .unreadable(path, reason: String(cString: strerror(errno)))
        }
        return descriptor
    }
}
