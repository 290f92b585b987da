import Foundation

/// The containers not closed yet, closed when the process exits normally (`atexit`: returning from
/// `main` or calling `exit`). A container in a global of `main.swift` is never deinitialised, so without
/// this its store's `-wal` stays beside the store after every run, as large as the run's writes. A
/// process killed by a signal or a crash closes nothing: SQLite merges the `-wal` at the next open.
final class OpenContainers: @unchecked Sendable {  // state behind `lock`
    /// The process's: every container registers here, and the process's exit closes them.
    static let shared: OpenContainers = {
        atexit { OpenContainers.shared.closeAll() }
        return OpenContainers()
    }()
    private let lock = NSLock()
    private var containers: [ObjectIdentifier: WeakReference<ModelContainer>] = [:]

    func contains(_ container: ModelContainer) -> Bool {
        lock.withLock { containers[ObjectIdentifier(container)] != nil }
    }

    func add(_ container: ModelContainer) {
        lock.withLock { containers[ObjectIdentifier(container)] = WeakReference(container) }
    }

    /// Forgets a container closed or going away.
    func remove(_ container: ModelContainer) {
        lock.withLock { _ = containers.removeValue(forKey: ObjectIdentifier(container)) }
    }

    /// Closes every container still open. Failures are not reported: the process is ending, and what a
    /// close could not merge SQLite merges at the next open.
    func closeAll() {
        let open = lock.withLock {
            defer { containers = [:] }
            return containers.values.compactMap(\.object)
        }
        for container in open { try? container.close() }
    }
}
