import Foundation

extension FileSystem {
    /// Throws unless this process can write `path` later: an existing file is opened for writing (appending,
    /// so nothing in it changes) and closed; for a new one, its directory must let it be made. For a file
    /// written at the end of a session (the REPL's history), so that a place it cannot write is refused at
    /// the start rather than after the work.
    package static func requireWritable(_ path: String) throws(FileError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT != S_IFDIR else { throw .cannotWrite(path, reason: "it is a directory") }
            let descriptor = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw .cannotWrite(path, reason: String(cString: strerror(errno))) }
            close(descriptor)
            return
        }
        let directory = splitPath(path).directory
        guard access(directory, W_OK | X_OK) == 0 else {
            let reason = errno == ENOENT ? "directory \(directory) does not exist" : String(cString: strerror(errno))
            throw .cannotWrite(path, reason: reason)
        }
    }
}
