/// Why `WriteGuard` refused a path; nothing was written.
package enum WriteGuardError: Error, Equatable, Sendable {
    /// Writing `path` would write over a file the command depends on (`what`: "the store b.vein"). `companion`:
    /// the file SQLite would write beside a new database at `path` that leads there.
    case wouldDestroy(path: String, companion: String?, what: String, consequence: String)
    /// `path` exists and may hold something that cannot be made again; it is replaced only when forced.
    case mayHoldData(path: String, reason: String)
    /// A new database's `companion` (its `role`: "write-ahead log") is already there, and SQLite would
    /// replay it into the new database.
    case leftover(path: String, companion: String, role: String)
}

extension WriteGuardError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .wouldDestroy(let path, nil, let what, let consequence):
            return "refusing to write \(path): it is \(what), and \(consequence)"
        case .wouldDestroy(let path, let companion?, let what, let consequence):
            return "refusing to write \(path): \(companion), which SQLite writes beside it, is \(what), and \(consequence)"
        case .mayHoldData(let path, let reason):
            return "refusing to replace \(path): \(reason)"
        case .leftover(let path, let companion, let role):
            return "refusing to create \(path): \(companion) is already there, a \(role) left by another database, "
                + "and SQLite would replay it into the new store"
        }
    }
}
