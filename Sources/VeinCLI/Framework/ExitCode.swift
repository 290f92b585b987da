/// Exit statuses (sysexits.h), docs/commands.md.
public enum ExitCode: Int32, Sendable {
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
    /// A configuration error: a key file others can read, a setting that cannot be used as given.
    case configuration = 78

    static let documented: [(Int32, String)] = [
        (0, "Success."),
        (1, "An unexpected failure."),
        (64, "Usage error: unknown command or option, missing argument."),
        (65, "Bad data: manifest, plan, expression, import record, unhandled migration data, a failed verification, or a write to a store of the previous store format (run vein upgrade first)."),
        (66, "Missing input: the store or a named file does not exist."),
        (69, "No key source available: no key option, no VEIN_KEY, and no key in a reachable keyring."),
        (73, "Cannot create: the store or key file already exists, or its directory does not; or a path to write (standard output and error too) leads to the store or its key file (or, without --force, to a file that is not text); or a new store's -wal or -journal is already there."),
        (74, "I/O error, or the keyring failed."),
        (75, "The store is busy: another process holds its lock."),
        (77, "Wrong key."),
        (78, "Configuration error: a key file readable by others."),
    ]
}

/// A failure a command reports with its own message and status (rather than an engine error).
public struct CommandFailure: Error, Sendable {
    public let message: String
    public let hint: String?
    public let exitCode: ExitCode
    public init(_ message: String, hint: String? = nil, exitCode: ExitCode) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    /// An exit status with nothing to say (`migrate status --exit-code` while stages are pending).
    public static func silent(exitCode: ExitCode) -> CommandFailure { CommandFailure("", exitCode: exitCode) }
}
