import Foundation
import Vein

/// Reads a passphrase: from the terminal without echo, or one line of standard input when it is not a
/// terminal (scripts pipe it in). Never from the command line, where `ps` would show it.
enum PassphrasePrompt {
    static func read(confirm: Bool) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = firstLineOfStandardInput(), !line.isEmpty else {
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

    /// The first line of standard input, read a byte at a time: what follows it stays unread for the
    /// command (`vein repl` reads its script from there, by file descriptor).
    private static func firstLineOfStandardInput() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Foundation.read(STDIN_FILENO, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
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
