import Foundation
import Vein

/// A one-line progress bar on standard error (docs/commands.md): only when standard error is a terminal and not
/// with --quiet, redrawn at most ten times a second, erased when the work ends.
final class ProgressBar: @unchecked Sendable {
    private let console: Console
    private let lock = NSLock()
    private var lastDraw = 0.0
    private var drawn = false
    static let width = 30

    /// Nil when no bar should be shown.
    init?(_ invocation: Invocation) {
        guard invocation.console.stderrIsTerminal, !invocation.quiet else { return nil }
        console = invocation.console
    }

    func update(_ progress: WorkProgress) {
        lock.withLock {
            let now = Date().timeIntervalSinceReferenceDate
            guard now - lastDraw >= 0.1 || progress.done == progress.total else { return }
            lastDraw = now
            drawn = true
            console.progressLine(Self.render(progress))
        }
    }

    /// Erases the bar; calling it again does nothing.
    func finish() {
        lock.withLock {
            if drawn { console.progressLine(nil) }
            drawn = false
        }
    }

    static func render(_ p: WorkProgress) -> String {
        guard p.total > 0 else { return "\(p.done) \(p.label)" }
        let filled = min(width, p.done * width / p.total)
        return "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + "\(p.done)/\(p.total) \(p.label)"
    }
}
