/// Why a store could not be created or opened.
public enum StoreError: Error, Equatable, Sendable {
    case notFound(String)
    case alreadyExists(String)
    case cannotCreate(String, reason: String)
    /// SQLCipher could not decrypt page 1: the key is wrong, or the file is not a database at all.
    /// `source`: where the key that was tried came from (named in the message).
    case wrongKey(String, source: KeySource? = nil)
    /// The file opens but does not hold a Vein store (no `_vein_meta`, or it is damaged).
    case notAVeinStore(String, reason: String)
    /// The file is text (JSON, a manifest, a script), named where a store is expected: never tried with a
    /// key, since a wrong key is not what is wrong.
    case textFile(String, json: Bool)
    /// Written by a newer Vein whose store format this build does not know.
    case unsupportedFormat(String, found: String)
    /// Written by a development build in an older store format (format 1: to-many as JSON arrays), which
    /// no release shipped; there is nothing to upgrade.
    case obsoleteFormat(String, found: String)
    /// Written in the format before this build's (`StoreFormat.upgradable`): read as it is, written only
    /// after `vein upgrade` converts it.
    case needsUpgrade(String, found: Int)
    /// Another connection holds the lock and the busy timeout ran out.
    case busy(String)
    /// Another process migrated the store (its `_vein_meta` names another schema) after this one opened it.
    case schemaChanged(String, from: String, to: String)
    /// A write to a store this user cannot write: the file (its mode, a read-only file system) or its
    /// directory, where SQLite must create the -wal and -shm files.
    case readOnly(String, reason: String)
    /// The file, or a directory on its path, may not be read by this user.
    case permissionDenied(String)
    /// The path names something other than a file (a directory).
    case notAFile(String, reason: String)
    /// The store was closed (`ModelContainer.close()`, or the process exiting): its connections are gone.
    case closed(String)
}

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notFound(let path): return "no such store: \(path)"
        case .alreadyExists(let path): return "\(path) already exists"
        case .cannotCreate(let path, let reason): return "cannot create \(path): \(reason)"
        case .wrongKey(let path, let source):
            return "cannot decrypt \(path)\(source.map { " with \($0.phrase)" } ?? ""): wrong key or not a Vein store"
        case .notAVeinStore(let path, let reason): return "\(path) is not a Vein store: \(reason)"
        case .textFile(let path, let json): return "\(path) is \(json ? "a JSON file" : "a text file"), not a store"
        case .unsupportedFormat(let path, let found):
            return "\(path) uses store format \(found), newer than this vein (format \(VeinVersion.storeFormat))"
        case .obsoleteFormat(let path, let found):
            return "\(path) uses store format \(found), older than this vein (format \(VeinVersion.storeFormat)); "
                + "no released vein wrote it, so it cannot be opened"
        case .needsUpgrade(let path, let found):
            return "\(path) is in store format \(found), which this version of Vein reads but does not write: convert it to "
                + "format \(VeinVersion.storeFormat) first (StoreUpgrade.upgrade, which the command line's upgrade command runs)"
        case .busy(let path): return "\(path) is busy: another process holds its lock"
        case .schemaChanged(let path, let from, let to):
            return "another process migrated \(path) from schema \(from) to \(to) while this command ran; nothing was written"
        case .readOnly(let path, let reason): return "\(path) is read-only: cannot write (\(reason))"
        case .permissionDenied(let path): return "cannot open \(path): permission denied"
        case .notAFile(let path, let reason): return "cannot open \(path): \(reason)"
        case .closed(let path): return "\(path) was closed (container.close()): open a new ModelContainer to use it again"
        }
    }
}
