import Foundation

/// A throwaway copy of a store for dry runs: a file in the temporary directory, encrypted with a random
/// key that only this process ever holds, so the copy is never plaintext on disk (ARCHITECTURE.md I15), even of a
/// plaintext store, and is unreadable once this process is gone. It is a `StagedFile` that is never
/// placed: removed when the dry run ends, when SIGTERM or SIGINT ends the process, or (after SIGKILL) by
/// the next dry run.
struct ScratchCopy {
    let file: StagedFile
    let database: Database

    var path: String { file.temporary }

    /// `guarding`: the store's files, which nothing SQLite writes beside the copy may lead to.
    init(of source: Database, guarding: WriteGuard) throws {
        let key = try CipherKey.random()
        let name = FileManager.default.temporaryDirectory.path + "/vein-dry-run"
        StagedFile.removeLeftovers(of: name, tag: StagedFile.Tag.scratch.rawValue)
        // ATTACH opens with the store connection's flags, which do not include CREATE: the file must exist
        // (empty is a valid empty database). O_EXCL: never someone else's file; 0600: only ours.
        let file = try StagedFile(target: name, tag: StagedFile.Tag.scratch.rawValue, mode: 0o600, placement: .replace)
        // The copy's own name is new (O_EXCL); the journal SQLite makes beside it is checked before ATTACH.
        do { try guarding.check(file.temporary, writing: .database) } catch {
            file.discard()
            throw error
        }
        // sqlcipher_export copies schema and rows into an attached database; one read transaction keeps
        // the copy consistent while other processes write.
        try source.attach(file.temporary, as: "vein_scratch", keyArgument: key.attachArgument)
        do {
            try source.execute("PRAGMA \"vein_scratch\".cipher_page_size = \(Database.cipherPageSize)")
            try source.transaction(.deferred) {
                try source.sqlcipherExport(into: "vein_scratch")
            }
            try source.execute("DETACH DATABASE \"vein_scratch\"")
            self.database = try Database(path: file.temporary, key: key)
        } catch {
            try? source.execute("DETACH DATABASE \"vein_scratch\"")
            file.discard()
            throw error
        }
        self.file = file
    }

    func remove() {
        try? database.close()
        file.discard()
    }
}
