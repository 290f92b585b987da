import Foundation
import Vein

/// Where results go: standard output, a file (`.output FILE`), or the pager for a long result on a terminal.
/// Lines are written as they are made; Ctrl-C or a pager that quit stops them. A pager that fails (a missing
/// program, `false`) is said once and not used again, and its result is written directly instead.
final class ReplOutput {
    private let console: Console
    private var pagerCommand: String?
    /// The file of `.output FILE`, and its name.
    private var file: (descriptor: Int32, path: String)?

    init(console: Console, interactive: Bool) {
        self.console = console
        self.pagerCommand = interactive && console.stdoutIsTerminal ? Pager.command(console.environment) : nil
    }

    deinit { if let file { close(file.descriptor) } }

    var isTerminal: Bool { file == nil && console.stdoutIsTerminal }
    var width: Int? { isTerminal ? ResultFormatter.terminalWidth(console) : nil }
    var useColor: Bool { isTerminal && console.useColorOnStdout }
    /// How many lines a list may take before it is summarised: a screenful, less room for the prompt and a
    /// note; nil (never summarised) when results do not go to a terminal.
    var screenful: Int? { isTerminal ? max(5, (ResultFormatter.terminalHeight(console) ?? 24) - 4) : nil }

    /// `.output FILE`: results go to FILE (made 0600 when new: results hold data, ARCHITECTURE.md I14); nil goes back to stdout.
    /// FILE is checked by `guarding` before anything is opened or closed: a refused FILE leaves the output
    /// where it was.
    func redirect(to path: String?, force: Bool = false, guarding: WriteGuard) throws {
        if let path { try guarding.check(path, force: force) }
        if let previous = file {
            file = nil
            // A write the system reports only at close is a failed write, never a silent loss.
            guard close(previous.descriptor) == 0 else {
                throw FileError.writeFailed(previous.path, reason: String(cString: strerror(errno)))
            }
        }
        guard let path else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError.cannotWrite(path, reason: String(cString: strerror(errno))) }
        file = (descriptor, path)
    }

    /// Writes a result a line at a time, through the pager when `paged` and on a terminal.
    func write(paged: Bool = false, _ body: (ResultFormatter.Emit) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            try writeResult(paged: paged) { emit in
                try body(emit)
                return nil
            }
        }
    }

    /// `write`, for a result that ends with a footer ("(3 rows)"): it is written to standard error once the
    /// rows are shown, after the pager has ended, so it comes below them.
    func writeResult(paged: Bool = false, _ body: (ResultFormatter.Emit) throws -> String?) throws {
        var footer: String?
        defer { footer.map(console.note) }
        if paged && isTerminal, let command = pagerCommand {
            let pager: Pager
            do { pager = try Pager(command: command) } catch {
                return try fallBack(from: command, because: ErrorReporting.report(error).messages.joined(separator: "; "), body, &footer)
            }
            do {
                try stoppable {
                    footer = try body { line in
                        if Interrupt.isPending { throw OutputStopped() }
                        try pager.write(line)
                    }
                }
            } catch {
                _ = pager.finish()
                throw error
            }
            if let failure = pager.finish() { try fallBack(from: command, because: failure, body, &footer) }
            return
        }
        try stoppable { footer = try body(direct) }
    }

    /// The pager failed: said once, not used again, and the result written without it.
    private func fallBack(from command: String, because reason: String, _ body: (ResultFormatter.Emit) throws -> String?,
                          _ footer: inout String?) throws {
        pagerCommand = nil
        console.warning("the pager '\(command)' failed (\(reason)); results are shown without it for the rest of the session")
        var made: String?
        try stoppable { made = try body(direct) }
        footer = made
    }

    /// A line to the file of `.output`, or to standard output.
    private func direct(_ line: String) throws {
        if Interrupt.isPending { throw OutputStopped() }
        if let file {
            try FileSystem.writeAll(file.descriptor, Array((line + "\n").utf8), path: file.path)
        } else {
            console.out(line)
        }
    }

    /// Runs `body` until it ends or the output is stopped (Ctrl-C, a pager that quit).
    private func stoppable(_ body: () throws -> Void) rethrows {
        do {
            try body()
        } catch is OutputStopped {
            if Interrupt.take() { console.note("interrupted") }
        }
    }
}
