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
/// processes are not announced; `PRAGMA data_version` (`ObjectContext.dataVersion`) shows those.
///
/// A handler runs on the saving thread, possibly while it holds its context's lock: it must not wait for
/// any context (hand the work to a queue of its own) and must not throw.
///
/// It also tells a context's observers of its `rollback`s (not saves, nothing is written: the objects of
/// the discarded changes are detached), on the thread that rolled back, after the context's lock is
/// released where that thread holds none; such a handler may use that context.
package final class StoreChangeCenter: @unchecked Sendable {  // `handlers` behind `lock`
    package static let shared = StoreChangeCenter()

    /// What an observer follows: the saves to a store file, or the rollbacks of one context (which its
    /// observer keeps alive, so the identifier names no other context meanwhile).
    private enum Channel: Hashable {
        case saves(storeAt: String)
        case rollbacks(of: ObjectIdentifier)
    }

    private let lock = NSLock()
    private var handlers: [Channel: [Int: @Sendable (StoreChange) -> Void]] = [:]
    private var nextToken = 0

    package init() {}

    /// Calls `handler` after every save to the store file at `realPath` (`Store.realPath`) until the
    /// returned observation is cancelled or released.
    package func observe(storeAt realPath: String, _ handler: @escaping @Sendable (StoreChange) -> Void) -> StoreObservation {
        observe(.saves(storeAt: realPath), handler)
    }

    /// Calls `handler` after every `rollback` of `context` that discarded changes, with their models, until
    /// the returned observation is cancelled or released. Keep `context` alive meanwhile.
    package func observeRollbacks(of context: ObjectContext, _ handler: @escaping @Sendable (StoreChange) -> Void) -> StoreObservation {
        observe(.rollbacks(of: ObjectIdentifier(context)), handler)
    }

    private func observe(_ channel: Channel, _ handler: @escaping @Sendable (StoreChange) -> Void) -> StoreObservation {
        let token: Int = lock.withLock {
            nextToken += 1
            handlers[channel, default: [:]][nextToken] = handler
            return nextToken
        }
        return StoreObservation { [weak self] in self?.remove(token, channel) }
    }

    private func remove(_ token: Int, _ channel: Channel) {
        lock.withLock {
            handlers[channel]?[token] = nil
            if handlers[channel]?.isEmpty == true { handlers[channel] = nil }
        }
    }

    /// Tells every observer of the file; the handlers are called outside this center's lock, so one may
    /// cancel its own observation. (Also what an app's sync posts after merging other replicas' commits.)
    package func post(_ change: StoreChange, storeAt realPath: String) {
        post(change, to: .saves(storeAt: realPath))
    }

    /// Tells the observers of `context`'s rollbacks.
    func postRollback(_ change: StoreChange, of context: ObjectContext) {
        post(change, to: .rollbacks(of: ObjectIdentifier(context)))
    }

    private func post(_ change: StoreChange, to channel: Channel) {
        guard !change.models.isEmpty else { return }
        let current = lock.withLock { handlers[channel].map { Array($0.values) } ?? [] }
        for handler in current { handler(change) }
    }

    /// Observers of the file at `realPath` (tests: a released live query leaves none).
    package func observerCount(storeAt realPath: String) -> Int {
        lock.withLock { handlers[.saves(storeAt: realPath)]?.count ?? 0 }
    }

    /// Observers of `context`'s rollbacks (tests).
    package func rollbackObserverCount(of context: ObjectContext) -> Int {
        lock.withLock { handlers[.rollbacks(of: ObjectIdentifier(context))]?.count ?? 0 }
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
