import CReadline
import Foundation
import Vein

/// Line editing on GNU readline, through its callback interface: the REPL waits in `poll`, so Ctrl-C
/// (a flag set by `Interrupt`) can cancel the line being typed without leaving, and Ctrl-D on an empty line
/// ends the input. History is readline's, in memory; `load`/`save` tie it to a file.
final class LineEditor {
    enum Input: Equatable {
        case line(String)
        case interrupted
        case endOfInput
    }

    /// The text before the cursor (with the earlier lines of a statement that continues) → completions.
    typealias CompletionSource = (String) -> Completer.Completion

    nonisolated(unsafe) private static var received: Input?
    nonisolated(unsafe) private static var completionSource: CompletionSource?
    nonisolated(unsafe) private static var candidates: [String] = []
    nonisolated(unsafe) private static var candidateIndex = 0
    /// The terminal went away (hung up): no answer will come.
    private(set) var inputClosed = false

    /// Earlier lines of the statement being typed, for completion.
    nonisolated(unsafe) static var continuedText = ""

    init(completion: @escaping CompletionSource) {
        LineEditor.completionSource = completion
        // Strings readline keeps for the whole process.
        vein_rl_configure(strdup("vein"), strdup(" \t\n\"\\'`@$><=;|&{(,.)[]:!+-*/%?#")) { text, start, end in
            let line = vein_rl_line_buffer().map { String(cString: $0) } ?? ""
            let before = String(decoding: line.utf8.prefix(Int(end)), as: UTF8.self)
            let completion = LineEditor.completionSource?(LineEditor.continuedText + before) ?? Completer.Completion(candidates: [])
            LineEditor.candidates = completion.candidates
            vein_rl_completion_settings(Int32(completion.appending.asciiValue ?? 32))
            return rl_completion_matches(text) { _, state in
                if state == 0 { LineEditor.candidateIndex = 0 }
                guard LineEditor.candidateIndex < LineEditor.candidates.count else { return nil }
                defer { LineEditor.candidateIndex += 1 }
                return strdup(LineEditor.candidates[LineEditor.candidateIndex])
            }
        }
    }

    /// Reads one line with `prompt`.
    func readLine(prompt: String) -> Input {
        LineEditor.received = nil
        vein_rl_clear_eof()
        _ = Interrupt.take()
        rl_callback_handler_install(prompt) { line in
            if let line {
                LineEditor.received = .line(String(cString: line))
                free(line)
            } else {
                LineEditor.received = .endOfInput
            }
            rl_callback_handler_remove()
        }
        while LineEditor.received == nil {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, -1)
            if Interrupt.take() {
                vein_rl_print("^C\n")
                // Readline's documented way out of a line in the callback interface.
                rl_free_line_state()
                rl_callback_sigcleanup()
                rl_replace_line("", 0)
                rl_callback_handler_remove()
                return .interrupted
            }
            if ready > 0 {
                if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { inputClosed = true }
                if descriptor.revents & Int16(POLLNVAL) != 0 {
                    rl_callback_handler_remove()
                    return .endOfInput
                }
                if descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { rl_callback_read_char() }
            } else if ready < 0, errno != EINTR {
                rl_callback_handler_remove()
                inputClosed = true
                return .endOfInput
            }
            if WindowSize.changed() { rl_resize_terminal() }
        }
        return LineEditor.received!
    }

    func addHistory(_ entry: String) {
        add_history(entry)
    }

    /// Reads the history file, if there is one.
    func loadHistory(_ path: String) {
        _ = read_history(path)
    }

    /// Writes the history to `path`, mode 0600: it holds data (ARCHITECTURE.md I14).
    func saveHistory(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError.cannotWrite(path, reason: String(cString: strerror(errno))) }
        // Only a regular file is made 0600: `--history /dev/null` (as root) must leave the device as it is.
        var status = stat()
        let isRegular = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        let modeSet = !isRegular || fchmod(descriptor, 0o600) == 0
        let reason = String(cString: strerror(errno))
        guard close(descriptor) == 0, modeSet else { throw FileError.writeFailed(path, reason: reason) }
        let rc = write_history(path)
        guard rc == 0 else { throw FileError.writeFailed(path, reason: String(cString: strerror(rc))) }
    }
}

/// SIGWINCH, noted for readline to re-read the terminal's size between keys.
enum WindowSize {
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0

    static func install() {
        signal(SIGWINCH) { _ in WindowSize.flag = 1 }
    }

    static func changed() -> Bool {
        defer { flag = 0 }
        return flag != 0
    }
}
