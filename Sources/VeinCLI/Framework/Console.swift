import Foundation
import Vein

/// Where a command writes: results to standard output, messages to standard error. Colour only when
/// standard error is a terminal and `NO_COLOR` is not set (docs/commands.md).
package final class Console: @unchecked Sendable {
    private let lock = NSLock()
    package let environment: [String: String]
    package let stderrIsTerminal: Bool
    package let stdinIsTerminal: Bool
    package let stdoutIsTerminal: Bool
    /// Takes what would be written to standard output or error (tests that run commands in process).
    private let capture: (@Sendable (_ descriptor: Int32, _ text: String) -> Void)?

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.stderrIsTerminal = isatty(STDERR_FILENO) == 1
        self.stdinIsTerminal = isatty(STDIN_FILENO) == 1
        self.stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        self.capture = nil
    }

    /// A console whose output goes to `capture` (with STDOUT_FILENO or STDERR_FILENO), none of it a terminal.
    package init(environment: [String: String], capture: @escaping @Sendable (_ descriptor: Int32, _ text: String) -> Void) {
        self.environment = environment
        self.stderrIsTerminal = false
        self.stdinIsTerminal = false
        self.stdoutIsTerminal = false
        self.capture = capture
    }

    package var useColor: Bool { stderrIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty }

    /// Writes a line of results to standard output.
    package func out(_ line: String = "") {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Writes a block of text (help, a completion script) that may already end in a newline.
    package func outText(_ text: String) {
        out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }

    /// Writes JSON results to standard output, indented, ending with a newline.
    package func outJSON(_ value: JSONValue) {
        out(JSONWriter.string(value, pretty: true))
    }

    /// `vein: error: …` and an optional `hint: …` on standard error.
    package func error(_ message: String, hint: String? = nil) {
        let label = useColor ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
        var text = "vein: \(label) \(Self.shown(message))\n"
        if let hint { text += (useColor ? "\u{1B}[2mhint:\u{1B}[0m " : "hint: ") + Self.shown(hint) + "\n" }
        writeMessage(text)
    }

    package func warning(_ message: String) {
        let label = useColor ? "\u{1B}[1;33mwarning:\u{1B}[0m" : "warning:"
        write("vein: \(label) \(Self.shown(message))\n", to: STDERR_FILENO)
    }

    /// A note on standard error (progress, what was done), silenced by `--quiet`.
    package func note(_ message: String) {
        write(Self.shown(message) + "\n", to: STDERR_FILENO)
    }

    /// A message as the terminal should show it: messages quote what a file, a store or a command line
    /// held (a name, a value, a path), which may carry escape sequences or bidi controls; each line is
    /// escaped as a table's values are, and the message's own line breaks stay.
    static func shown(_ message: String) -> String {
        message.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).escapingControlCharacters }.joined(separator: "\n")
    }

    /// Replaces the current line of standard error (a progress bar), or erases it when `text` is nil.
    func progressLine(_ text: String?) {
        write("\r\u{1B}[2K" + (text ?? ""), to: STDERR_FILENO)
    }

    package func bold(_ text: String) -> String {
        useColorOnStdout ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }

    package var useColorOnStdout: Bool { stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty }

    /// Results and notes. When the output cannot be written the command cannot go on usefully: a reader
    /// that went away (a closed pipe, `vein query … | head -1`) ends it quietly with status 0, as `cat`
    /// ends; any other failure (a full disk, /dev/full, a closed descriptor) ends it with one line on
    /// standard error and status 74. (FileHandle.write would trap instead.)
    private func write(_ text: String, to descriptor: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if let capture { return capture(descriptor, text) }
        do {
            // From the string's own bytes: a line holding a value of a hundred megabytes is not copied again.
            var text = text
            try text.withUTF8 { try FileSystem.writeAll(descriptor, UnsafeRawBufferPointer($0), path: descriptor == STDOUT_FILENO ? "standard output" : "standard error") }
        } catch {
            TemporaryFiles.removeAll()
            let report = ErrorReporting.report(error)
            for message in report.messages { try? FileSystem.writeAll(STDERR_FILENO, Array("vein: error: \(message)\n".utf8), path: "standard error") }
            exit(report.exitCode.rawValue)
        }
    }

    /// A line of results that a command must know the fate of (its work is done and the line reports it):
    /// a failure is thrown to the command instead of ending the process.
    func outChecked(_ line: String) throws {
        try writeChecked(line + "\n", to: STDOUT_FILENO, path: "standard output")
    }

    /// `note`, with a failure thrown to the command (see `outChecked`).
    func noteChecked(_ message: String) throws {
        try writeChecked(message + "\n", to: STDERR_FILENO, path: "standard error")
    }

    private func writeChecked(_ text: String, to descriptor: Int32, path: String) throws {
        lock.lock()
        defer { lock.unlock() }
        try FileSystem.writeAll(descriptor, Array(text.utf8), path: path)
    }

    /// An error report: written if standard error takes it; when it does not, there is nobody to tell and
    /// the command's own exit status stands.
    private func writeMessage(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        if let capture { return capture(STDERR_FILENO, text) }
        try? FileSystem.writeAll(STDERR_FILENO, Array(text.utf8), path: "standard error")
    }
}

/// Everything a command's `run` receives.
package struct Invocation: Sendable {
    package let arguments: ParsedArguments
    package let console: Console
    /// `info`, `migrate status`: for messages and help references.
    package let commandPath: String

    package var environment: [String: String] { console.environment }
    package var wantsJSON: Bool { arguments[SharedOptions.json] }
    package var quiet: Bool { arguments[SharedOptions.quiet] }

    package subscript<Spec, Value>(key: CommandKey<Spec, Value>) -> Value { arguments[key] }
}
