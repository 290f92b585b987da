import Foundation

/// Workers on threads of their own that write one row: a worker that read the row can wait until another
/// worker has committed since, so that its save meets a conflict for certain instead of when a sleep
/// happens to be long enough. Nobody waits forever: when every worker still at work is waiting, they go on.
final class CommitTurns: @unchecked Sendable {
    private let condition = NSCondition()
    private let workers: Int
    private var commits = 0
    private var waiting = 0
    private var working: Int

    init(workers: Int) {
        self.workers = workers
        working = workers
    }

    /// Runs `body(worker)` for each worker on its own thread, and returns when all have finished.
    func run(_ body: @escaping @Sendable (Int) -> Void) {
        let finished = DispatchSemaphore(value: 0)
        for worker in 0..<workers {
            Thread {
                body(worker)
                self.changeState { $0.working -= 1 }
                finished.signal()
            }.start()
        }
        for _ in 0..<workers { finished.wait() }
    }

    /// The commits so far: taken before reading, for `waitForACommit(after:)`.
    func mark() -> Int { condition.withLock { commits } }

    /// A worker committed a change of the row.
    func committed() { changeState { $0.commits += 1 } }

    /// Waits until a commit after `mark`, or until no worker at work is left to make one.
    func waitForACommit(after mark: Int) {
        condition.lock()
        defer { condition.unlock() }
        waiting += 1
        condition.broadcast()
        while commits == mark && waiting < working { condition.wait() }
        waiting -= 1
    }

    private func changeState(_ change: (CommitTurns) -> Void) {
        condition.withLock {
            change(self)
            condition.broadcast()
        }
    }
}
