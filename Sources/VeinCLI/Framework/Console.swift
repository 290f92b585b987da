import Foundation
import Vein

/// Where a command writes: results to standard output, messages to standard error. Colour only when
/// standard error is a terminal and `NO_COLOR` is not set (SPEC §8).
public final class Console: @unchecked Sendable {
    private let lock = NSLock()
    public let environment: [String: String]
    public let stderrIsTerminal: Bool
    public let stdinIsTerminal: Bool
    public let stdoutIsTerminal: Bool

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.stderrIsTerminal = isatty(STDERR_FILENO) == 1
        self.stdinIsTerminal = isatty(STDIN_FILENO) == 1
        self.stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    }

    public var useColor: Bool { stderrIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty }

    /// Writes a line of results to standard output.
    public func out(_ line: String = "") {
        write(line + "\n", to: FileHandle.standardOutput)
    }

    /// Writes a block of text (help, a completion script) that may already end in a newline.
    public func outText(_ text: String) {
        out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }

    /// Writes JSON results to standard output, indented, ending with a newline.
    public func outJSON(_ value: JSONValue) {
        out(JSONWriter.string(value, pretty: true))
    }

    /// `vein: error: …` and an optional `hint: …` on standard error.
    public func error(_ message: String, hint: String? = nil) {
        let label = useColor ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
        var text = "vein: \(label) \(message)\n"
        if let hint { text += (useColor ? "\u{1B}[2mhint:\u{1B}[0m " : "hint: ") + hint + "\n" }
        write(text, to: FileHandle.standardError)
    }

    public func warning(_ message: String) {
        let label = useColor ? "\u{1B}[1;33mwarning:\u{1B}[0m" : "warning:"
        write("vein: \(label) \(message)\n", to: FileHandle.standardError)
    }

    /// A note on standard error (progress, what was done), silenced by `--quiet`.
    public func note(_ message: String) {
        write(message + "\n", to: FileHandle.standardError)
    }

    /// Replaces the current line of standard error (a progress bar), or erases it when `text` is nil.
    func progressLine(_ text: String?) {
        write("\r\u{1B}[2K" + (text ?? ""), to: FileHandle.standardError)
    }

    public func bold(_ text: String) -> String {
        useColorOnStdout ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }

    public var useColorOnStdout: Bool { stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty }

    private func write(_ text: String, to handle: FileHandle) {
        lock.lock()
        defer { lock.unlock() }
        handle.write(Data(text.utf8))
    }
}

/// Everything a command's `run` receives.
public struct Invocation: Sendable {
    public let arguments: ParsedArguments
    public let console: Console
    /// `info`, `migrate status`: for messages and help references.
    public let commandPath: String

    public var environment: [String: String] { console.environment }
    public var wantsJSON: Bool { arguments.flag("json") }
    public var quiet: Bool { arguments.flag("quiet") }

    /// A positional argument the parser guaranteed to be present.
    public func required(_ name: String) -> String { arguments.argument(name) ?? "" }
    /// An option the parser guaranteed to be present (`isRequired`).
    public func required(option long: String) -> String { arguments.value(long) ?? "" }
}
