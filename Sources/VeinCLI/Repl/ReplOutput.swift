import Foundation
import Vein

/// Where results go: standard output, a file (`.output FILE`), or the pager for a long result on a terminal.
/// Lines are written as they are made; Ctrl-C or a pager that quit stops them.
final class ReplOutput {
    private let console: Console
    private let pagerCommand: String?
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

    /// `.output FILE`: results go to FILE (made 0600 when new: results hold data); nil goes back to stdout.
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
        let pager = try paged && isTerminal ? pagerCommand.map(Pager.init) : nil
        defer { pager?.finish() }
        do {
            try body { line in
                if Interrupt.isPending { throw OutputStopped() }
                if let pager { try pager.write(line) } else if let file {
                    try FileSystem.writeAll(file.descriptor, Array((line + "\n").utf8), path: file.path)
                } else { console.out(line) }
            }
        } catch is OutputStopped {
            if Interrupt.take() { console.note("interrupted") }
        }
    }
}
