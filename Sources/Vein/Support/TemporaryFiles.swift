import Foundation

/// Temporary files this process is writing, removed when SIGTERM, SIGINT or SIGHUP ends it, so that an
/// interrupted dry run or rotation leaves nothing behind. (SIGKILL cannot be caught: such leftovers are
/// removed by the next run, `StagedFile.removeLeftovers`.)
///
/// The handler may only make async-signal-safe calls: it walks a fixed table of C strings, made when a
/// file is registered, and unlinks each; then it restores the default action and raises the signal again,
/// so the process ends as it would have. A name is never freed once in the table (a handler might be
/// reading it); a process registers a handful.
package enum TemporaryFiles {
    fileprivate static let capacity = 256
    private static let suffixes = ["", "-wal", "-shm", "-journal"]
    private static let lock = NSLock()
    nonisolated(unsafe) private static var slotsOfPath: [String: [Int]] = [:]
    nonisolated(unsafe) private static var installed = false
    nonisolated(unsafe) fileprivate static let names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()

    package static func register(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        if !installed { install() }
        var slots: [Int] = []
        for suffix in suffixes {
            guard let slot = (0..<capacity).first(where: { names[$0] == nil }) else { break }
            names[slot] = strdup(path + suffix)
            slots.append(slot)
        }
        slotsOfPath[path, default: []] += slots
    }

    package static func unregister(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        for slot in slotsOfPath.removeValue(forKey: path) ?? [] { names[slot] = nil }
    }

    /// Whether this process is writing `path` (registered and not yet placed or discarded).
    package static func isRegistered(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return slotsOfPath[path] != nil
    }

    /// Removes every registered file now: the process is about to end before their owners could.
    package static func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        for (path, slots) in slotsOfPath {
            FileSystem.removeDatabaseFiles(path)
            for slot in slots { names[slot] = nil }
        }
        slotsOfPath.removeAll()
    }

    private static func install() {
        installed = true
        _ = names  // made now: the handler must not be the first to touch it (its initializer allocates)
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            let previous = signal(signalNumber, removeRegisteredFilesAndDie)
            // Only a signal that would end the process as it is: one it was started ignoring (nohup, a
            // background job's SIGINT) stays ignored, and an app's own handler stays its handler.
            if unsafeBitCast(previous, to: Int.self) != unsafeBitCast(SIG_DFL, to: Int.self) { signal(signalNumber, previous) }
        }
    }
}

private func removeRegisteredFilesAndDie(_ signalNumber: Int32) {
    let names = TemporaryFiles.names
    for slot in 0..<TemporaryFiles.capacity { if let name = names[slot] { unlink(name) } }
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}
