import Foundation

/// A throwaway copy of a store for dry runs: a file in the temporary directory, encrypted with a random
/// key that only this process ever holds, so the copy is never plaintext on disk (SPEC §5), even of a
/// plaintext store, and is unreadable once this process is gone.
struct ScratchCopy {
    let path: String
    let database: Database

    init(of source: Database) throws {
        let key = try CipherKey.random()
        let path = FileManager.default.temporaryDirectory.path + "/vein-dry-run-\(ULID.make()).vein"
        // ATTACH opens with the store connection's flags, which do not include CREATE: the file must exist
        // (empty is a valid empty database). O_EXCL: never someone else's file; 0600: only ours.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.cannotCreate(path, reason: String(cString: strerror(errno))) }
        close(fd)
        // sqlcipher_export copies schema and rows into an attached database; one read transaction keeps
        // the copy consistent while other processes write.
        try source.execute("ATTACH DATABASE ? AS \"vein_scratch\" KEY ?", [.text(path), .text(key.attachArgument)])
        do {
            try source.execute("PRAGMA \"vein_scratch\".cipher_page_size = \(Database.cipherPageSize)")
            try source.transaction(.deferred) {
                _ = try source.scalar("SELECT sqlcipher_export('vein_scratch')")
            }
            try source.execute("DETACH DATABASE \"vein_scratch\"")
            self.database = try Database(path: path, key: key)
        } catch {
            try? source.execute("DETACH DATABASE \"vein_scratch\"")
            FileSystem.removeDatabaseFiles(path)
            throw error
        }
        self.path = path
    }

    func remove() {
        try? database.close()
        FileSystem.removeDatabaseFiles(path)
    }
}
