import Foundation

/// A file the user named could not be read.
public enum FileError: Error, Equatable, Sendable {
    case notFound(String)
    case unreadable(String, reason: String)
    case notText(String)
    case cannotWrite(String, reason: String)
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
}
