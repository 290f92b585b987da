import Foundation
import Vein

/// Reads a passphrase: from the terminal without echo, or one line of standard input when it is not a
/// terminal (scripts pipe it in). Never from the command line, where `ps` would show it.
enum PassphrasePrompt {
    static func read(confirm: Bool) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
                throw KeyError.passphraseUnavailable("standard input is empty")
            }
            return line
        }
        let first = try prompt("Passphrase: ")
        if confirm {
            let second = try prompt("Passphrase again: ")
            guard first == second else { throw KeyError.passphraseMismatch }
        }
        return first
    }

    private static func prompt(_ text: String) throws -> String {
        try? FileSystem.writeAll(STDERR_FILENO, Array(text.utf8), path: "standard error")  // unseen, it still reads
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            try? FileSystem.writeAll(STDERR_FILENO, [0x0A], path: "standard error")
        }
        guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
            throw KeyError.passphraseUnavailable("no passphrase was entered")
        }
        return line
    }
}
