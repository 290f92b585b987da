import Foundation

/// What one committed save wrote: the models whose rows, or whose relationships' links, it changed.
package struct StoreChange: Sendable, Equatable {
    /// Model names. A link of an inverse pair names both models (each side's relationship reads it), and
    /// a delete names the models on either side of the deleted one's relationships (their links to it
    /// were cleared).
    package let models: Set<String>

    package init(models: Set<String>) {
        self.models = models
    }
}

/// The saves of this process, by store file: each context made from a store announces here what each
/// save wrote, once the transaction it belongs to has committed (never before: an observer that reads
/// must find the rows), so every context and container on the same file can follow them. Writes by other
/// processes are not announced; `PRAGMA data_version` (`ModelContext.dataVersion`) shows those.
///
/// A handler runs on the saving thread, possibly while it holds its context's lock: it must not wait for
/// any context (hand the work to a queue of its own) and must not throw.
package final class StoreChangeCenter: @unchecked Sendable {  // `handlers` behind `lock`
    package static let shared = StoreChangeCenter()

    private let lock = NSLock()
    private var handlers: [String: [Int: @Sendable (StoreChange) -> Void]] = [:]
    private var nextToken = 0

    package init() {}

    /// Calls `handler` after every save to the store file at `realPath` (`Store.realPath`) until the
    /// returned observation is cancelled or released.
    package func observe(storeAt realPath: String, _ handler: @escaping @Sendable (StoreChange) -> Void) -> StoreObservation {
        let token: Int = lock.withLock {
            nextToken += 1
            handlers[realPath, default: [:]][nextToken] = handler
            return nextToken
        }
        return StoreObservation { [weak self] in self?.remove(token, realPath) }
    }

    private func remove(_ token: Int, _ realPath: String) {
        lock.withLock {
            handlers[realPath]?[token] = nil
            if handlers[realPath]?.isEmpty == true { handlers[realPath] = nil }
        }
    }

    /// Tells every observer of the file; the handlers are called outside this center's lock, so one may
    /// cancel its own observation.
    func post(_ change: StoreChange, storeAt realPath: String) {
        guard !change.models.isEmpty else { return }
        let current = lock.withLock { handlers[realPath].map { Array($0.values) } ?? [] }
        for handler in current { handler(change) }
    }

    /// Observers of the file at `realPath` (tests: a released live query leaves none).
    package func observerCount(storeAt realPath: String) -> Int {
        lock.withLock { handlers[realPath]?.count ?? 0 }
    }
}

/// An observer's registration: cancelled when released.
package final class StoreObservation: @unchecked Sendable {  // `cancelAction` behind `lock`
    private let lock = NSLock()
    private var cancelAction: (@Sendable () -> Void)?

    init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = cancel
    }

    package func cancel() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { cancelAction = nil }
            return cancelAction
        }
        action?()
    }

    deinit { cancel() }
}
