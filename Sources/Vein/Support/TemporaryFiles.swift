import Dispatch
import Foundation

/// Temporary files this process is writing, removed when SIGTERM or SIGINT ends it, so that an
/// interrupted dry run or rotation leaves nothing behind. (SIGKILL cannot be caught: such leftovers are
/// removed by the next run, `StagedFile.removeLeftovers`.)
///
/// The signals are taken by dispatch sources, not handlers, so the removal runs as ordinary code; then the
/// signal is raised again with its default action, and the process ends as it would have.
public enum TemporaryFiles {
    private static let state = Mutex()

    public static func register(_ path: String) {
        state.withLock { $0.paths.insert(path); installIfNeeded(&$0) }
    }

    public static func unregister(_ path: String) {
        state.withLock { _ = $0.paths.remove(path) }
    }

    private struct State {
        var paths: Set<String> = []
        var sources: [DispatchSourceSignal] = []
        var installed = false
    }

    private final class Mutex: @unchecked Sendable {
        private let lock = NSLock()
        private var state = State()
        func withLock<T>(_ body: (inout State) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&state)
        }
    }

    private static func installIfNeeded(_ state: inout State) {
        guard !state.installed else { return }
        state.installed = true
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            let previous = signal(signalNumber, SIG_IGN)
            // A signal the process was started ignoring (nohup, a background job's SIGINT) stays ignored.
            guard unsafeBitCast(previous, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) else { continue }
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { removeAllAndDie(signalNumber) }
            source.resume()
            state.sources.append(source)
        }
    }

    /// Removes every registered file: the process is about to end before their owners could.
    public static func removeAll() {
        let paths = state.withLock { state in
            defer { state.paths.removeAll() }
            return state.paths
        }
        for path in paths { FileSystem.removeDatabaseFiles(path) }
    }

    private static func removeAllAndDie(_ signalNumber: Int32) {
        removeAll()
        signal(signalNumber, SIG_DFL)
        kill(getpid(), signalNumber)
    }
}
