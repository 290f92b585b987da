import Foundation
import Vein

/// `$PAGER` (default `less -FRX`, which quits at once when the text fits the screen), fed through a pipe a
/// line at a time, so a long result is shown while it is still being formatted.
final class Pager {
    static func command(_ environment: [String: String]) -> String? {
        guard let pager = environment["PAGER"] else { return "less -FRX" }
        return pager.trimmingCharacters(in: .whitespaces).isEmpty ? nil : pager
    }

    /// Variables the pager must not see: the key's (`VEIN_KEY`, the one `--key-env` names). A pager can run
    /// commands and editors; it needs the terminal's variables, never the key. Set once, before any pager.
    nonisolated(unsafe) static var hiddenVariables: Set<String> = [KeyOptions.environmentVariable]

    private let pid: pid_t
    private let input: Int32

    init(command: String) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FileError.writeFailed("the pager", reason: String(cString: strerror(errno))) }
        // Close-on-exec, so no other child ever holds the pager's input open (the pager would never end).
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let argv = ["/bin/sh", "-c", command]
        let cArgv = argv.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.filter { !Self.hiddenVariables.contains($0.key) }
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgv + cEnv).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, cArgv, cEnv)
        close(fds[0])
        guard rc == 0 else {
            close(fds[1])
            throw FileError.writeFailed("the pager '\(command)'", reason: String(cString: strerror(rc)))
        }
        self.pid = pid
        self.input = fds[1]
    }

    /// Writes one line; a pager that quit (EPIPE) stops the output.
    func write(_ line: String) throws {
        do {
            try FileSystem.writeAll(input, Array((line + "\n").utf8), path: "the pager")
        } catch {
            throw OutputStopped()
        }
    }

    /// Ends the input and waits for the person to leave the pager. Returns why the pager failed, or nil
    /// when it did not: it exited with a status other than 0 (a program that is missing, `false`). A pager
    /// the person quit, or stopped with a signal, exits 0 or by the signal: not a failure.
    func finish() -> String? {
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
        guard exited, code != 0 else { return nil }
        switch code {
        case 127: return "exit status 127: command not found"
        case 126: return "exit status 126: not executable"
        default: return "exit status \(code)"
        }
    }
}
