/// Exit statuses (sysexits.h), docs/commands.md.
/// Each status and what it means, once: the man pages' EXIT STATUS lists `allCases` in this order.
package enum ExitCode: Int32, CaseIterable, Sendable {
    case ok = 0
    case failure = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case cannotCreate = 73
    case ioError = 74
    case busy = 75
    case permission = 77
    case configuration = 78

    /// The status as the man pages explain it to a person or a script reading `$?`.
    var meaning: String {
        switch self {
        case .ok: "Success."
        case .failure: "An unexpected failure; also migrate status --exit-code while stages are pending."
        case .usage: "Usage error: an unknown command or option, a missing argument, arguments in the wrong order."
        case .dataError: "Bad data: a manifest, plan, expression, import record, unhandled migration data, a failed verification, a damaged store, a stored value not of its field's type, a write to a store of the previous store format (run vein upgrade first), or a JSON or text file where a store was named."
        case .noInput: "Missing input: the store or a named file does not exist (or a directory was named where a store was expected)."
        case .unavailable: "No key source available: no key option, no VEIN_KEY, and no key in a reachable keyring."
        case .cannotCreate: "Cannot create: the store or key file already exists, or its directory does not; or a path to write (standard output and error too) leads to the store or its key file (or, without --force, to a file that is not text); or a new store's -wal or -journal is already there."
        case .ioError: "I/O error (a full disk), a failing or locked keyring, or a store the user may not read (or write, for a command that writes)."
        case .busy: "The store is busy: another process holds its lock, or a write conflicts with another process's."
        case .permission: "Wrong key."
        case .configuration: "Configuration error: a key file readable by others; or a synced store that must be migrated (the other replicas migrated) or whose migration is not finished."
        }
    }
}

/// A failure a command reports with its own message and status (rather than an engine error).
package struct CommandFailure: Error, Sendable {
    package let message: String
    package let hint: String?
    package let exitCode: ExitCode
    package init(_ message: String, hint: String? = nil, exitCode: ExitCode) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    /// An exit status with nothing to say (`migrate status --exit-code` while stages are pending).
    package static func silent(exitCode: ExitCode) -> CommandFailure { CommandFailure("", exitCode: exitCode) }
}
