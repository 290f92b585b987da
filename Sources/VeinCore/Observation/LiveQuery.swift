import Dispatch
import Foundation
import Observation
import Vein

/// The objects a `FetchDescriptor` selects, kept current: an `@Observable` result (the Observation module,
/// no UI framework) for the UI-independent surface, what SwiftData's `@Query` is for SwiftUI.
///
/// ```swift
/// let drafts = LiveQuery(filter: #Predicate<Post> { $0.publishedAt == nil },
///                        sort: [SortDescriptor(\.title)], in: container.context)
/// withObservationTracking { show(drafts.results) } onChange: { … }   // a UI framework does this for you
/// ```
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
/// - On `refresh()`.
///
/// The fetch runs on the live query's own queue in one read transaction of `context`, never on the saving
/// thread, so a save returns without waiting for it; objects the context holds are read anew there (an
/// object with unsaved changes keeps them). `results` are instances in `context`: change them and save
/// there, as with SwiftData. Until the first refresh after a save, `results` is what the last fetch saw.
///
/// A fetch that fails (a store migrated under the context, a closed connection) leaves `results` as they
/// were and sets `error`; the next successful refresh clears it. Thread-safe: the state is behind a lock,
/// and `results`, `error` can be read, and `refresh()` called, from any thread. Released, it stops
/// watching: no observer, timer or queue work of it is left behind. Make live queries after
/// `ModelContainer.migrate()`, on the context it leaves.
@Observable
public final class LiveQuery<T: PersistentModel>: @unchecked Sendable {  // mutable state behind `lock`
    @ObservationIgnored public let descriptor: FetchDescriptor<T>
    @ObservationIgnored public let context: ModelContext
    /// How often another process's writes are looked for; nil: never.
    @ObservationIgnored public let pollInterval: Duration?

    @ObservationIgnored private let lock = NSLock()
    @ObservationIgnored private var _results: [T] = []
    @ObservationIgnored private var _error: (any Error)?
    /// The rows `_results` came from (ids and held values): a re-fetch after another process's write
    /// publishes only when they differ.
    @ObservationIgnored private var snapshot: [RowSnapshot] = []
    /// `PRAGMA data_version` of the snapshot `_results` came from.
    @ObservationIgnored private var version: Int64?
    /// Fetches in the order of their snapshots (taken under the context's lock, inside the read transaction)
    /// and the newest applied: a fetch that finishes after a newer one (`refresh()` on another thread while
    /// the queue refreshes) is dropped, never shown over newer rows.
    @ObservationIgnored private var fetchTickets = 0
    @ObservationIgnored private var appliedTicket = 0
    /// A refresh is queued and has not started: another request joins it.
    @ObservationIgnored private var refreshQueued = false
    /// Times `results` or `error` was set after the first fetch (tests count refreshes with it).
    var publishCount: Int { lock.withLock { _publishCount } }
    @ObservationIgnored private var _publishCount = 0

    @ObservationIgnored private let queue: DispatchQueue
    @ObservationIgnored private var observation: StoreObservation?
    @ObservationIgnored private(set) var poller: DispatchSourceTimer?
    /// The models whose saves refresh it: `T` and what it reaches through relationships.
    @ObservationIgnored let watchedModels: Set<String>

    /// The objects the descriptor selects, in its order, as of the last refresh.
    public var results: [T] {
        access(keyPath: \.results)
        return lock.withLock { _results }
    }

    /// Why the last refresh failed; nil after one that succeeded.
    public var error: (any Error)? {
        access(keyPath: \.error)
        return lock.withLock { _error }
    }

    /// A live query of `descriptor` in `context`, fetched now (on the calling thread) and then kept current.
    public init(_ descriptor: FetchDescriptor<T> = FetchDescriptor(), in context: ModelContext,
                pollInterval: Duration? = .seconds(1)) {
        self.descriptor = descriptor
        self.context = context
        self.pollInterval = pollInterval
        queue = DispatchQueue(label: "vein.live-query.\(T.modelName)")
        watchedModels = Self.reachableModels(from: T.modelName, in: context.engine.manifest)
        switch fetch() {
        case .success(let fetched):
            (_results, snapshot, version, appliedTicket) = (fetched.models, fetched.rows, fetched.version, fetched.ticket)
        case .failure(let failure): _error = failure
        }
        startWatching()
    }

    /// As SwiftData's `@Query(filter:sort:)`: the objects `filter` holds for, sorted by `sort`.
    public convenience init(filter: Predicate<T>? = nil, sort: [SortDescriptor<T>] = [], in context: ModelContext,
                            pollInterval: Duration? = .seconds(1)) {
        self.init(FetchDescriptor(predicate: filter, sortBy: sort), in: context, pollInterval: pollInterval)
    }

    deinit {
        observation?.cancel()
        poller?.cancel()
    }

    /// Fetches again now, on the calling thread, and sets `results` (and `error`).
    public func refresh() {
        publish(fetch(), always: true)
    }

    // MARK: Watching

    private func startWatching() {
        if let realPath = context.engine.storeRealPath {
            let watched = watchedModels
            observation = StoreChangeCenter.shared.observe(storeAt: realPath) { [weak self] change in
                guard !change.models.isDisjoint(with: watched) else { return }
                self?.scheduleRefresh()
            }
        }
        if let pollInterval {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let nanoseconds = Int(max(1_000_000, pollInterval.nanoseconds))
            timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                           leeway: .nanoseconds(nanoseconds / 10))
            timer.setEventHandler { [weak self] in self?.pollOnce() }
            poller = timer
            timer.resume()
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

    /// On the queue: another connection committed since the snapshot of `results` (the version moved), so
    /// fetch again and publish if the rows differ. Own-process saves that wrote the query's models have
    /// refreshed it already, at their snapshot's version.
    func pollOnce() {
        guard let current = try? context.engine.dataVersion(), current != lock.withLock({ version }) else { return }
        publish(fetch(), always: false)
    }

    // MARK: Fetching

    struct RowSnapshot: Equatable {
        let id: String
        let values: [Value]
    }

    typealias Fetched = (models: [T], rows: [RowSnapshot], version: Int64, ticket: Int)

    /// One read transaction: the version, the objects, and their rows as read, all of one snapshot.
    private func fetch() -> Result<Fetched, any Error> {
        Result {
            try context.engine.transaction(.deferred) {
                let ticket = lock.withLock { () -> Int in
                    fetchTickets += 1
                    return fetchTickets
                }
                let version = try context.engine.dataVersion()
                let models = try context.fetch(descriptor)
                let rows = models.map { model in
                    let object = model._$backing.object
                    return RowSnapshot(id: object?.id ?? "", values: object?.heldValues ?? [])
                }
                return (models, rows, version, ticket)
            }
        }
    }

    private func publish(_ outcome: Result<Fetched, any Error>, always: Bool) {
        switch outcome {
        case .success(let fetched):
            let (changed, hadError) = lock.withLock { () -> (Bool, Bool) in
                guard fetched.ticket > appliedTicket else { return (false, false) }
                appliedTicket = fetched.ticket
                version = fetched.version
                return (always || snapshot != fetched.rows, _error != nil)
            }
            if hadError {
                withMutation(keyPath: \.error) { lock.withLock { _error = nil } }
            }
            guard changed else { return }
            withMutation(keyPath: \.results) {
                lock.withLock {
                    guard fetched.ticket == appliedTicket else { return }  // a newer fetch came between
                    _results = fetched.models
                    snapshot = fetched.rows
                    _publishCount += 1
                }
            }
        case .failure(let failure):
            // A poll that fails again says nothing new.
            guard always || lock.withLock({ _error == nil }) else { return }
            withMutation(keyPath: \.error) {
                lock.withLock {
                    _error = failure
                    _publishCount += 1
                }
            }
        }
    }

    /// Waits for the refreshes queued so far (tests).
    func waitForQueuedRefreshes() {
        queue.sync {}
    }

    /// `model` and every model reachable from it through relationships, in the manifest.
    static func reachableModels(from model: String, in manifest: SchemaManifest) -> Set<String> {
        var reached: Set<String> = [model]
        var next = [model]
        while let name = next.popLast() {
            for relationship in manifest.model(named: name)?.relationships ?? [] where reached.insert(relationship.target).inserted {
                next.append(relationship.target)
            }
        }
        return reached
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
