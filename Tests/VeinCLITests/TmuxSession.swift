import Foundation
import Testing

/// The built `vein` in a real terminal: a tmux server of its own (`-L`, a socket per session), keys sent
/// with `send-keys`, the screen read with `capture-pane`, polled until the expected text shows (or a
/// timeout fails the test).
struct TmuxSession {
    let runner: VeinRunner
    let socket = "vein-test-\(UUID().uuidString.prefix(8))"
    static let tmux = "/usr/bin/tmux"

    /// Starts `vein ARGUMENTS` in a 100×30 terminal, in the runner's directory, with HOME there and a known
    /// environment plus `environment`.
    init(_ runner: VeinRunner, _ arguments: [String], environment: [String: String] = [:], width: Int = 100) throws {
        self.runner = runner
        let config = runner.path("tmux.conf")
        try "set -g remain-on-exit on\nset -g history-limit 5000\n".write(toFile: config, atomically: true, encoding: .utf8)
        var env = ["HOME": runner.directory.path, "PATH": "/usr/bin:/bin", "TERM": "xterm", "LANG": "C.UTF-8",
                   "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/vein-test-bus", "PAGER": ""]
        env.merge(environment) { $1 }
        let vein = (["env", "-i"] + env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [VeinRunner.binary] + arguments)
            .map(Self.shellQuoted).joined(separator: " ")
        // The status is printed by the shell: tmux 3.3 may lose it when the terminal closes first.
        let command = vein + "; echo \"" + Self.exitMarker + "$?]\""
        let started = try runner.run(Self.tmux, ["-L", socket, "-f", config, "new-session", "-d", "-s", "t",
                                                 "-x", String(width), "-y", "30", command])
        guard started.status == 0 else { throw TmuxFailed(message: "tmux new-session: \(started.stderr)") }
    }

    static func shellQuoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Types text as it is.
    func type(_ text: String) throws {
        _ = try runner.run(Self.tmux, ["-L", socket, "send-keys", "-t", "t", "-l", text])
    }

    /// Presses keys by tmux's names: Enter, Tab, C-c, C-d.
    func press(_ keys: String...) throws {
        _ = try runner.run(Self.tmux, ["-L", socket, "send-keys", "-t", "t"] + keys)
    }

    /// The screen's text; with `escapes`, the colour sequences too.
    func screen(escapes: Bool = false) throws -> String {
        try runner.run(Self.tmux, ["-L", socket, "capture-pane", "-p", "-J", "-t", "t", "-S", "-200"] + (escapes ? ["-e"] : [])).stdout
    }

    /// Waits until the screen holds `text` (or `condition` is true of it), and returns the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitUntil(timeout: timeout, description: text, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    @discardableResult
    func waitUntil(timeout: Double = 10, description: String, sourceLocation: SourceLocation = #_sourceLocation,
                   _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(50_000)
        }
        Issue.record("timed out waiting for \(description); the screen:\n\(last)", sourceLocation: sourceLocation)
        throw TmuxFailed(message: "timed out")
    }
    /// Waits until vein is at work on what it was given rather than waiting for the terminal: its process
    /// is running (or in a disk wait) at two looks 20 ms apart. Reading the terminal it sleeps; the
    /// instants it spends taking a key are far shorter than the gap between the looks.
    func waitUntilBusy(timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pid = try veinProcess()
        let deadline = Date().addingTimeInterval(timeout)
        var busyLooks = 0
        while Date() < deadline {
            // "1234 (vein) R …": the state follows the parenthesised name.
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            let state = stat.split(separator: ")").last?.split(separator: " ").first
            busyLooks = state == "R" || state == "D" ? busyLooks + 1 : 0
            if busyLooks == 2 { return }
            usleep(20_000)
        }
        Issue.record("timed out waiting for vein (pid \(pid)) to be at work", sourceLocation: sourceLocation)
        throw TmuxFailed(message: "timed out")
    }

    /// vein's process: the child of the shell tmux runs in the pane.
    private func veinProcess() throws -> String {
        let shell = try runner.run(Self.tmux, ["-L", socket, "display-message", "-p", "-t", "t", "#{pane_pid}"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        guard let pid = children.split(separator: " ").first else { throw TmuxFailed(message: "no process under the pane's shell \(shell)") }
        return String(pid)
    }

    static let exitMarker = "[vein exited: "

    /// The exit status once vein has ended, waiting for it.
    func exitStatus(timeout: Double = 10) throws -> Int? {
        let screen = try waitFor(Self.exitMarker, timeout: timeout)
        guard let marker = screen.range(of: Self.exitMarker, options: .backwards) else { return nil }
        return Int(screen[marker.upperBound...].prefix { $0.isNumber })
    }

    /// Ends the server and removes its socket, which tmux leaves behind.
    func kill() {
        let path = (try? runner.run(Self.tmux, ["-L", socket, "display-message", "-p", "#{socket_path}"]).stdout)?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try? runner.run(Self.tmux, ["-L", socket, "kill-server"])
        if let path, path.hasSuffix("/" + socket) { try? FileManager.default.removeItem(atPath: path) }
    }

    struct TmuxFailed: Error { let message: String }
}
