import Foundation

/// Decides whether a command may write a path, before anything is opened for writing (ARCHITECTURE.md I12). One mistyped path must
/// never destroy a store: every file Vein writes (an export, `.output`, a history file, a key file, a new
/// store or copy, a scratch copy) is checked here against the files the command depends on — the store it
/// opened or reads, the `-wal`, `-shm` and `-journal` SQLite keeps beside it, and the key files that open
/// it — by device and inode (`FileLocation`), so a symbolic link, a hard link or another spelling of the
/// path is recognised, and a file that does not exist yet (a `-wal` between sessions) by the name it
/// would have. Such a write is refused whatever the caller says, and so is a new database whose `-wal` or
/// `-journal` is already there (SQLite would replay it into the new store).
///
/// An existing file that may hold something that cannot be made again (binary data such as an encrypted
/// store, a SQLite database, a key; see `ExistingContent`), or a key file the command was given but did not
/// use, is refused unless the write is forced.
package struct WriteGuard: Sendable {
    /// A file the command must not write over.
    package struct Protected: Sendable {
        package let path: String
        /// What it is, for the message: "the store b.vein", "the key file of the store b.vein".
        package let what: String
        /// What writing over it would do, a clause: "writing over it would destroy the store".
        package let consequence: String
        /// Refused only as an existing file may be (`check(force:)` lets it be replaced).
        package let overridable: Bool
    }

    package private(set) var protected: [Protected] = []

    package init() {}

    /// What is written at a path.
    package enum Kind: Sendable {
        /// One file, created, replaced or written into.
        case file
        /// A SQLite database: the file, and the `-wal`, `-shm` and `-journal` SQLite writes beside it.
        case database
    }

    /// The files SQLite keeps beside a database, and what each is called in a message.
    static let databaseCompanions = [("-wal", "write-ahead log"), ("-shm", "shared-memory index"), ("-journal", "rollback journal")]

    package mutating func protect(_ path: String, as what: String, consequence: String, overridable: Bool = false) {
        protected.append(Protected(path: path, what: what, consequence: consequence, overridable: overridable))
    }

    /// A store's file and its companions. `name` is how messages name the store; `new`: a store this command
    /// is creating, which does not exist yet (nothing else may take its names).
    package mutating func protectDatabase(_ path: String, name: String, new: Bool = false) {
        let store = (new ? "the new store " : "the store ") + name
        protect(path, as: store, consequence: new ? "SQLite would write over it" : "writing over it would destroy the store")
        for (suffix, role) in Self.databaseCompanions {
            protect(path + suffix, as: "the \(role) of \(store)",
                    consequence: new ? "SQLite would write over it" : "writing over it would damage the store")
        }
    }

    /// Throws when writing `path` (as `kind`) would write over a protected file; for a new database, when a
    /// log or journal SQLite would replay into it is already there; then, unless `force`, when `path` is an
    /// existing file that may hold something that cannot be made again.
    package func check(_ path: String, writing kind: Kind = .file, force: Bool = false) throws(WriteGuardError) {
        let guarded = protected.map { ($0, FileLocation($0.path)) }
        let written = [(path, nil as String?)] + (kind == .database ? Self.databaseCompanions.map { (path + $0.0, path + $0.0) } : [])
        for (target, companion) in written {
            let location = FileLocation(target)
            for (file, place) in guarded where !file.overridable && location.isSameFile(as: place) {
                throw .wouldDestroy(path: path, companion: companion, what: file.what, consequence: file.consequence)
            }
        }
        if kind == .database { try Self.checkNoLeftovers(path) }
        // A new database must not exist at all (its creator refuses one that does): nothing to look into.
        guard kind == .file, !force else { return }
        let location = FileLocation(path)
        guard location.file != nil else { return }
        for (file, place) in guarded where file.overridable && location.isSameFile(as: place) {
            throw .mayHoldData(path: path, reason: "it is \(file.what)")
        }
        if let reason = ExistingContent.reasonToKeep(path) { throw .mayHoldData(path: path, reason: reason) }
    }

    /// The companions SQLite replays into the database beside them when it opens it: a write-ahead log's
    /// frames, a hot journal's pages. A new database's must not be there already (left by a store that was
    /// moved away without them, say): the new store would take another database's pages, or fail to open.
    /// They may hold the last commits of that database, so they are never removed here; an empty one holds
    /// nothing to replay. Nothing to check when the database itself exists: its creator refuses it.
    static func checkNoLeftovers(_ path: String) throws(WriteGuardError) {
        var info = stat()
        guard lstat(path, &info) != 0, errno == ENOENT else { return }
        for (suffix, role) in databaseCompanions where suffix != "-shm" {
            // -shm is rebuilt by the first connection to open the database.
            if stat(path + suffix, &info) == 0, info.st_size > 0 {
                throw .leftover(path: path, companion: path + suffix, role: role)
            }
        }
    }

    /// Throws when an open descriptor writes into a protected file: `vein export STORE >> STORE`, where the
    /// shell opened the file before vein ran. `name`: "standard output".
    package func check(descriptor: Int32, name: String) throws(WriteGuardError) {
        let location = FileLocation(descriptor: descriptor)
        guard location.file != nil else { return }
        for file in protected where !file.overridable && location.isSameFile(as: FileLocation(file.path)) {
            throw .wouldDestroy(path: name, companion: nil, what: file.what, consequence: file.consequence)
        }
    }
}
