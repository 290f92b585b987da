extension WriteGuard {
    /// What a command working on `store` must not write over: the store's files, and the key files that open
    /// it. `keyFile` is the key file the command was given (`KeyOptions.keyFile`); when the store did not
    /// need it (a plaintext store) it is still a key file, replaced only when forced.
    package init(protecting store: Store, keyFile: String? = nil) {
        self.init()
        protectStore(store)
        protectKeyFiles(of: store, named: keyFile)
    }

    /// The store's file and its companions, under the name it was opened with and its real path: SQLite
    /// keeps the `-wal` beside the name the store was opened with.
    package mutating func protectStore(_ store: Store) {
        protectStore(at: store.path, realPath: store.realPath)
    }

    /// A store named by `path`, open or not (`realPath` found when not given).
    package mutating func protectStore(at path: String, realPath: String? = nil) {
        protectDatabase(path, name: path)
        let realPath = realPath ?? (try? FileSystem.realPath(path)) ?? path
        if realPath != path { protectDatabase(realPath, name: path) }
    }

    /// A key file named before anything opened it (for standard output and error: a key file followed by a
    /// line of text reads as another key), and its pending key.
    package mutating func protectKeyFile(_ file: String) {
        for (path, kind) in [(file, "key file"), (KeyFile.pendingPath(for: file), "pending key file")] {
            protect(path, as: "the \(kind) \(path)", consequence: "writing into it would change the key it holds")
        }
    }

    /// The key file that opened `store` and its pending key (`FILE.pending`, the only key to the store while
    /// a rotation is unfinished), and `named`, the key file the command was given.
    package mutating func protectKeyFiles(of store: Store, named: String?) {
        var inUse: String?
        if case .keyFile(let file) = store.encryption.keySource { inUse = file }
        for file in Set([named, inUse].compactMap { $0 }).sorted() {
            for (path, kind) in [(file, "key file"), (KeyFile.pendingPath(for: file), "pending key file")] {
                if inUse != nil {
                    protect(path, as: "the \(kind) of the store \(store.path)", consequence: "writing over it would lose the key that opens the store")
                } else {
                    protect(path, as: "a \(kind) given to this command", consequence: "writing over it would lose the key", overridable: true)
                }
            }
        }
    }
}
