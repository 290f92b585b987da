import Dispatch
import Foundation
import Vein

/// Keeps a container's store in sync with its other replicas while the app runs (docs/sync.md#from-an-app):
/// it sends soon after each save of this process, and sends and receives every `interval` (another
/// process's saves, the other replicas' segments), and at once when a PostgreSQL relay tells of a segment. Live queries refresh on what it merges, as on any
/// other connection's commit. Every failure reaches `onError` and `lastError`, and the next round tries
/// again: a relay that is gone, full or refusing never stops the sync silently.
///
/// The store must be a replica already (`vein sync init` or `vein sync join`). The sync works on a
/// connection of its own, on a queue of its own.
public final class ReplicaSync: @unchecked Sendable {  // mutable state behind `lock`; `session` used on `queue` only
    /// What one round did.
    public struct Round: Sendable, Equatable {
        /// Commits of this store sent, and commits of other replicas merged.
        public let sent: Int
        public let received: Int
        /// Rows set aside for a unique value after the round (`conflicts()`).
        public let conflicts: Int
    }

    private let queue = DispatchQueue(label: "vein.sync")
    /// Set on `queue`, so `stop` run there (the last reference let go during a round) does not wait on it.
    private static let onQueue = DispatchSpecificKey<Bool>()
    let session: SyncSession
    private let lock = NSLock()
    private var _lastError: (any Error)?
    private var stopped = false
    private var observation: StoreObservation?
    private var timer: DispatchSourceTimer?
    private let onError: @Sendable (any Error) -> Void
    private let onConflict: @Sendable ([Conflict]) -> Void
    /// The app's migration plan: a store the container migrated crosses the sync's migration with it.
    private let plan: MigrationPlan?
    /// The set-aside rows the app has heard of (used on `queue`).
    private var conflictsHeard: Set<PersistentIdentifier> = []

    init(store: Store, keys: KeyOptions, plan: MigrationPlan?, every interval: Duration, onError: @escaping @Sendable (any Error) -> Void,
         onConflict: @escaping @Sendable ([Conflict]) -> Void) throws {
        self.plan = plan
        queue.setSpecific(key: Self.onQueue, value: true)
        let own = try Store.open(store.path, keys: keys)
        own.changeAuthor = "sync"
        session = try SyncSession(store: own)
        self.onError = onError
        self.onConflict = onConflict
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = max(1, Int(interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak self] in self?.round() }
        // A save of this process: sent at once, on the sync's queue.
        let observation = StoreChangeCenter.shared.observe(storeAt: store.realPath) { [weak self] _ in
            self?.queue.async { [weak self] in self?.round() }
        }
        lock.withLock {
            self.timer = timer
            self.observation = observation
        }
        timer.resume()
        if let listener = try session.listener() { listen(to: listener) }
    }

    /// A thread of its own waits on the relay's notifications (its own connection), and starts a round on
    /// each; it ends with the sync. A lost connection is opened again; the timer's rounds, which go on
    /// meanwhile, report the relay's failures.
    private func listen(to relay: SyncRelay) {
        Thread.detachNewThread { [weak self] in
            var listener: SyncRelay? = relay
            while true {
                var news = false
                do {
                    let current = try listener ?? SyncRelay.open(relay.recordedLocation)
                    listener = current
                    news = try current.waitForNews(seconds: 1)
                } catch {
                    listener = nil
                    sleep(1)
                }
                guard let self, !self.lock.withLock({ self.stopped }) else { return }
                if news { self.queue.async { [weak self] in self?.round() } }
            }
        }
    }

    /// The last round's failure; nil once a round succeeds.
    public var lastError: (any Error)? { lock.withLock { _lastError } }

    /// Sends and receives now, waiting for the round to end.
    @discardableResult
    public func syncNow() throws -> Round {
        try onQueue { try pushAndPull() }
    }

    /// Runs `body` on the sync's queue, unless the sync is stopped.
    func onQueue<T>(_ body: () throws -> T) throws -> T {
        try queue.sync {
            guard !lock.withLock({ stopped }) else { throw StoreError.closed(session.store.path) }
            return try body()
        }
    }

    /// Stops the sync: no round starts after it returns. Its connection closes.
    public func stop() {
        let (timer, observation) = lock.withLock { () -> (DispatchSourceTimer?, StoreObservation?) in
            stopped = true
            defer { self.timer = nil; self.observation = nil }
            return (self.timer, self.observation)
        }
        observation?.cancel()
        timer?.cancel()
        if DispatchQueue.getSpecific(key: Self.onQueue) == true {
            try? session.store.close()
        } else {
            queue.sync { try? session.store.close() }
        }
    }

    deinit { stop() }

    private func pushAndPull() throws -> Round {
        // A store the container migrated publishes the migration, or starts from the one another replica
        // published, before it sends anything (docs/sync.md#migrations).
        if let plan, try session.unfinishedMigration() != nil, case .rebased = try session.finishMigration(plan: plan) {
            announceMerged()
        }
        let sent = try session.push(), received = try session.pull()
        lock.withLock { _lastError = nil }
        if received.segments > 0 { announceMerged() }
        let conflicts = try listConflicts()
        let new = conflicts.filter { !conflictsHeard.contains($0.row) }
        conflictsHeard = Set(conflicts.map(\.row))
        if !new.isEmpty { onConflict(new) }
        return Round(sent: sent.transactions, received: received.transactions, conflicts: conflicts.count)
    }

    /// This process's contexts and live queries follow merged commits as they follow its saves.
    func announceMerged() {
        StoreChangeCenter.shared.post(StoreChange(models: Set(session.store.manifest.models.map(\.name))), storeAt: session.store.realPath)
    }

    /// One round on the queue; a failure is reported, and the next round tries again.
    private func round() {
        guard !lock.withLock({ stopped }) else { return }
        do { _ = try pushAndPull() } catch {
            lock.withLock { _lastError = error }
            onError(error)
        }
    }
}

extension ModelContainer {
    /// Syncs this container's store with its other replicas until the returned sync is stopped
    /// (docs/sync.md#from-an-app): after each save here, and every `interval`. `onError` hears every
    /// failure (on the sync's own queue).
    /// `onConflict` hears of each row a merge sets aside for a unique value another row claimed first,
    /// once, in the round that set it aside (`ReplicaSync.conflicts()`).
    public func sync(every interval: Duration = .seconds(5), onError: @escaping @Sendable (any Error) -> Void = { _ in },
                     onConflict: @escaping @Sendable ([ReplicaSync.Conflict]) -> Void = { _ in }) throws -> ReplicaSync {
        try ReplicaSync(store: store, keys: keyOptions, plan: try plan?.enginePlan(appID: manifest.app), every: interval,
                        onError: onError, onConflict: onConflict)
    }
}
