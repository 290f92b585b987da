import Foundation
import Vein

/// Ctrl-C in the REPL cancels what is under way (the input being typed, a running statement, output to
/// the pager), never the session. The handler only sets a flag and, while a statement runs, asks SQLite
/// to stop it, as the sqlite3 shell does.
enum Interrupt {
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0
    nonisolated(unsafe) private static var running: Unmanaged<ObjectContext>?
    /// The connection a raw `.sql` read runs on (the store's own, not the context's).
    nonisolated(unsafe) private static var runningSQL: Unmanaged<Database>?

    static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            Interrupt.flag = 1
            Interrupt.running?.takeUnretainedValue().interrupt()
            Interrupt.runningSQL?.takeUnretainedValue().interrupt()
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: a blocking read or poll returns EINTR
        sigaction(SIGINT, &action, nil)
    }

    static var isPending: Bool { flag != 0 }

    /// Whether Ctrl-C was pressed since the last call.
    static func take() -> Bool {
        defer { flag = 0 }
        return flag != 0
    }

    /// Runs a statement that Ctrl-C may stop.
    static func whileRunning<T>(on database: Database, _ body: () throws -> T) throws -> T {
        flag = 0
        runningSQL = Unmanaged.passUnretained(database)
        defer { runningSQL = nil }
        return try body()
    }

    static func whileRunning<T>(on context: ObjectContext, _ body: () throws -> T) throws -> T {
        flag = 0
        running = Unmanaged.passUnretained(context)
        defer { running = nil }
        return try body()
    }
}

/// The output was stopped: Ctrl-C, or the pager quit before reading it all.
struct OutputStopped: Error {}
