import Dispatch
import Foundation
import Observation
import Vein

/// The objects a `FetchDescriptor` selects in the store, kept current: an `@Observable` result (the
/// Observation module, no UI framework) for the UI-independent surface, what SwiftData's `@Query` is for
/// SwiftUI.
///
/// ```swift
/// let drafts = LiveQuery(filter: #Predicate<Post> { $0.publishedAt == nil },
///                        sort: [SortDescriptor(\.title)], in: container.context)
/// withObservationTracking { show(drafts.results) } onChange: { … }   // a UI framework does this for you
/// ```
///
/// What it shows: the committed state. `results` are the objects whose rows the store holds and the
/// descriptor selects, whatever `context` has not saved: an object inserted there appears once saved, one
/// deleted there leaves once saved (the descriptor's `includePendingChanges` is set to false; otherwise
/// whether unsaved rows showed would depend on when an unrelated save happened to refresh it). An object
/// of `results` changed and not saved keeps its changes (a predicate Vein leaves to memory sees them).
/// `context.rollback()` detaches the objects of the changes it discards, so a rollback of `context` that
/// discards changes of its models refreshes it before `rollback()` returns: no rolled-back object stays in
/// `results`.
///
/// When it refreshes:
/// - After every save in this process that writes its models, from any context of any container on the
///   same store file. Its models are `T` and every model `T` reaches through relationships (a predicate
///   or a sort key may read them); a save writes a model when it inserts, changes or deletes its rows, or
///   changes a link of one of its relationships (saving an `Attachment` linked to a post writes `Post`
///   too). Saves of other models cause no fetch.
/// - After another process's write, seen through SQLite's `PRAGMA data_version` every `pollInterval`
///   (1 second unless given; nil watches this process only). SQLite does not say what another connection
///   wrote, so such a change re-fetches, and `results` is set only when the rows differ (which rows, in
///   which order, or a value in them); a change another process made only to a to-many's links or a lazy
///   field of the same rows is seen by the objects, not announced.
/// - On `refresh()`, and after a rollback of `context` (above).
///
/// What only polling sees (with `pollInterval: nil`, never seen until the next save or `refresh()`): writes
/// not made by a context's save or `transaction`: the migrator's (`ModelContainer.migrate()`, the plan's
/// `willMigrate`/`didMigrate` contexts), a `Store.transaction`'s, and writes through another path to
/// the same file (a hard link: saves are announced under the path they were made through).
///
/// What it cannot follow: a store file replaced by a rename (a key rotation, a restore). The context keeps
/// reading the file it opened; each fetch first checks the path still names that file (device and inode)
/// and otherwise fails with `LiveQueryError.storeReplaced`, so a poll (or the next refresh) sets `error`.
/// Open the store again and make a new live query.
///
/// The fetch runs on the live query's own queue in one read transaction of `context`, never on the saving
/// thread, so a save returns without waiting for it; objects the context holds are read anew there (an
/// object with unsaved changes keeps them). `results` are instances in `context`: change them and save
/// there, as with SwiftData. Until the first refresh after a save, `results` is what the last fetch saw.
/// A refresh never reads inside a `transaction` of `context` (its rows are not committed and may be rolled
/// back): asked for there (`refresh()`, a rollback, making the live query), it runs on the queue once the
/// transaction has ended.
///
/// A fetch that fails (a store migrated under the context, a replaced store file, a closed connection)
/// leaves `results` as they were and sets `error`; the next successful refresh clears it. Fetches are
/// applied in the order of their snapshots, failures too: an older outcome never replaces a newer one.
/// Thread-safe: the state is behind a lock, and `results`, `error` can be read, and `refresh()` called, from
/// any thread. Released, it stops watching: no observer, timer or queue work of it is left behind. Make
/// live queries after `ModelContainer.migrate()`, on the context it leaves.
@Observable
public final class LiveQuery<T: PersistentModel>: @unchecked Sendable {  // mutable state behind `lock`
    /// The descriptor as given, `includePendingChanges` false: the committed state.
    @ObservationIgnored public let descriptor: FetchDescriptor<T>
    @ObservationIgnored public let context: ModelContext
    /// How often another process's writes are looked for; nil: never.
    @ObservationIgnored public let pollInterval: Duration?

    @ObservationIgnored private let lock = NSLock()
    @ObservationIgnored private var _results: [T] = []
    @ObservationIgnored private var _error: (any Error)?
    @ObservationIgnored private var _historyToken: DefaultHistoryToken?
    /// The rows `_results` came from (ids and held values): a re-fetch after another process's write
    /// publishes only when they differ.
    @ObservationIgnored private var snapshot: [RowSnapshot] = []
    /// `PRAGMA data_version` of the snapshot `_results` came from.
    @ObservationIgnored private var version: Int64?
    /// Outcomes applied in the order of their snapshots (SnapshotOrder.swift).
    @ObservationIgnored private var order = SnapshotOrder()
    /// A refresh is queued and has not started: another request joins it.
    @ObservationIgnored private var refreshQueued = false
    /// Times `results` or `error` was set after the first fetch (tests count refreshes with it).
    var publishCount: Int { lock.withLock { _publishCount } }
    @ObservationIgnored private var _publishCount = 0

    @ObservationIgnored private let queue: DispatchQueue
    /// The change source: saves in this process and rollbacks of `context` (SaveWatch.swift).
    @ObservationIgnored private var saveWatch: SaveWatch?
    /// The poll policy: another process's writes, a replaced file (StorePoller.swift).
    @ObservationIgnored private var storePoller: StorePoller?
    /// The store file the context reads, as its path named it when the live query was made.
    @ObservationIgnored private let storeFile: FileIdentity?

    /// The models whose saves refresh it: `T` and what it reaches through relationships.
    var watchedModels: Set<String> { saveWatch?.models ?? [] }
    /// The poll timer, while it polls (tests).
    var poller: DispatchSourceTimer? { storePoller?.timer }

    /// The objects the descriptor selects, in its order, as of the last refresh.
    public var results: [T] {
        access(keyPath: \.results)
        return lock.withLock { _results }
    }

    /// The newest commit of the store's history that the last refresh saw (nil when the store keeps no
    /// history): `results` reflect every commit up to it. An app that keeps it (it is Codable) learns
    /// what changed while it was not running with `fetchHistory` after it, then makes a new live query.
    public var historyToken: DefaultHistoryToken? {
        lock.withLock { _historyToken }
    }

    /// Why the last refresh failed; nil after one that succeeded.
    public var error: (any Error)? {
        access(keyPath: \.error)
        return lock.withLock { _error }
    }

    /// A live query of `descriptor` in `context`, fetched now (on the calling thread; inside a `transaction`
    /// of `context`, on its queue once that has ended) and then kept current.
    public convenience init(_ descriptor: FetchDescriptor<T> = FetchDescriptor(), in context: ModelContext,
                            pollInterval: Duration? = .seconds(1)) {
        self.init(descriptor, in: context, pollInterval: pollInterval, afterFirstFetch: nil)
    }

    /// `afterFirstFetch` runs between the first fetch and its publication (tests: a save, a refresh there).
    init(_ descriptor: FetchDescriptor<T>, in context: ModelContext, pollInterval: Duration?,
         afterFirstFetch: ((LiveQuery<T>) -> Void)?) {
        var committed = descriptor
        committed.includePendingChanges = false
        self.descriptor = committed
        self.context = context
        self.pollInterval = pollInterval
        queue = DispatchQueue(label: "vein.live-query.\(T.modelName)")
        storeFile = context.engine.storeRealPath.flatMap(FileIdentity.init(path:))
        // Watching before the first fetch: a save committed after its snapshot is announced to this
        // query and refreshes it (ticketed after it), not lost between the fetch and the registration.
        startWatching()
        let first = fetch()
        afterFirstFetch?(self)
        publish(first, always: true, counted: false)
    }

    /// As SwiftData's `@Query(filter:sort:)`: the objects `filter` holds for, sorted by `sort`.
    public convenience init(filter: Predicate<T>? = nil, sort: [SortDescriptor<T>] = [], in context: ModelContext,
                            pollInterval: Duration? = .seconds(1)) {
        self.init(FetchDescriptor(predicate: filter, sortBy: sort), in: context, pollInterval: pollInterval)
    }

    /// Fetches again now, on the calling thread, and sets `results` (and `error`). Inside a `transaction` of
    /// `context`: on the queue, once the transaction has ended.
    public func refresh() {
        publish(fetch(), always: true)
    }

    // MARK: Watching

    private func startWatching() {
        let models = SaveWatch.reachableModels(from: T.modelName, in: context.engine.manifest)
        saveWatch = SaveWatch(models: models, context: context.engine,
                              onSave: { [weak self] in self?.scheduleRefresh() },
                              // On the thread that rolled back, so `rollback()` returns with no detached object in `results`.
                              onRollback: { [weak self] in self?.refresh() })
        if let pollInterval {
            storePoller = StorePoller(every: pollInterval, on: queue) { [weak self] in self?.pollOnce() }
        }
    }

    /// A save wrote the query's models: one refresh on the queue, joined by requests made before it starts.
    private func scheduleRefresh() {
        let queued = lock.withLock { () -> Bool in
            defer { refreshQueued = true }
            return refreshQueued
        }
        guard !queued else { return }
        queue.async { [weak self] in
            guard let self else { return }
            lock.withLock { refreshQueued = false }
            publish(fetch(), always: true)
        }
    }

    /// On the queue: another connection committed since the snapshot of `results` (the version moved), or
    /// the path names another file now, so fetch again and publish if the rows differ (or the failure).
    /// Own-process saves that wrote the query's models have refreshed it already, at their snapshot's version.
    func pollOnce() {
        guard StorePoller.shouldFetch(storeFile: storeFile, context: context.engine, shown: lock.withLock({ version })) else { return }
        publish(fetch(), always: false)
    }

    // MARK: Fetching

    struct RowSnapshot: Equatable {
        let id: String
        let values: [Value]
    }

    typealias Fetched = (models: [T], rows: [RowSnapshot], version: Int64, token: DefaultHistoryToken?)

    /// A fetch's result or failure, with its place in snapshot order.
    struct Outcome {
        let ticket: Int
        let result: Result<Fetched, any Error>
    }

    /// One read transaction: the version, the objects, and their rows as read, all of one snapshot. Nil
    /// when `context` is inside a transaction (see the type's comment): a refresh is queued instead.
    func fetch() -> Outcome? {
        let engine = context.engine
        return engine.lock.withLock { () -> Outcome? in
            guard !engine.isInTransaction else {
                scheduleRefresh()
                return nil
            }
            let ticket = lock.withLock { order.issue() }
            return Outcome(ticket: ticket, result: Result {
                if StorePoller.isReplaced(storeFile) { throw LiveQueryError.storeReplaced(engine.storePath) }
                return try engine.transaction(.deferred) {
                    let version = try engine.dataVersion()
                    let position = try engine.changeLogPosition()
                    let models = try context.fetch(descriptor)
                    let rows = models.map { model in
                        let object = model._$backing.object
                        return RowSnapshot(id: object?.id ?? "", values: object?.heldValues ?? [])
                    }
                    return (models, rows, version, position.map { DefaultHistoryToken(storeIdentifier: $0.replica, value: $0.token) })
                }
            })
        }
    }

    /// Applies `outcome` if no newer one has been: its rows (when `always`, or when they differ from the
    /// shown ones) and no error, or its failure (when `always`, or when no error is shown: a poll that
    /// fails again says nothing new).
    func publish(_ outcome: Outcome?, always: Bool, counted: Bool = true) {
        guard let outcome else { return }
        let (setResults, setError) = lock.withLock { () -> (Bool, Bool) in
            guard order.admit(outcome.ticket) else { return (false, false) }
            switch outcome.result {
            case .success(let fetched):
                version = fetched.version
                _historyToken = fetched.token
                return (always || snapshot != fetched.rows, _error != nil)
            case .failure:
                return (false, always || _error == nil)
            }
        }
        if setError {
            withMutation(keyPath: \.error) {
                lock.withLock {
                    guard order.isLatest(outcome.ticket) else { return }  // a newer outcome came between
                    if case .failure(let failure) = outcome.result {
                        _error = failure
                        if counted { _publishCount += 1 }
                    } else {
                        _error = nil
                    }
                }
            }
        }
        guard setResults, case .success(let fetched) = outcome.result else { return }
        withMutation(keyPath: \.results) {
            lock.withLock {
                guard order.isLatest(outcome.ticket) else { return }
                _results = fetched.models
                snapshot = fetched.rows
                if counted { _publishCount += 1 }
            }
        }
    }

    /// Waits for the refreshes queued so far (tests).
    func waitForQueuedRefreshes() {
        queue.sync {}
    }
}
