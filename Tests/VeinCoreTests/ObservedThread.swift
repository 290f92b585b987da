import Foundation

/// A thread of this process as Linux shows it (/proc/self/task), for a test that must act only once
/// another thread is blocked (waiting for a lock) instead of guessing with a sleep.
struct ObservedThread: Sendable {
    /// The thread's id in /proc/self/task.
    let id: String

    /// The calling thread (/proc/thread-self links to "PID/task/TID").
    static func current() -> ObservedThread {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return ObservedThread(id: link.split(separator: "/").last.map(String.init) ?? "")
    }

    /// Whether the thread sleeps in the kernel (a lock's wait) or has ended.
    var isBlockedOrGone: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8) else { return true }
        // "1234 (name) S …": the state follows the parenthesised name.
        return stat.split(separator: ")").last?.split(separator: " ").first == "S"
    }

    /// Waits (looking every millisecond, for at most `timeout` seconds) until the thread is blocked or gone.
    func waitUntilBlockedOrGone(timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !isBlockedOrGone {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}
