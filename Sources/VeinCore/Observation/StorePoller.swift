import Dispatch
import Vein

/// A live query's poll policy: what only polling sees, another process's writes and a store file replaced
/// under the path. Every `interval` on the query's queue it asks whether to fetch again: when the path
/// names another file now (the fetch then fails and says so), or when the store's `PRAGMA data_version`
/// has moved past the version of the rows shown (own-process saves refresh the query at once, so a poll
/// that finds the shown version does nothing). Released, its timer stops.
final class StorePoller {
    let timer: DispatchSourceTimer

    init(every interval: Duration, on queue: DispatchQueue, tick: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(max(1_000_000, interval.nanoseconds))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                       leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler(handler: tick)
        timer.resume()
    }

    deinit { timer.cancel() }

    /// Whether a tick fetches: the file was replaced, or another connection committed since `shown`.
    static func shouldFetch(storeFile: FileIdentity?, context: ObjectContext, shown: Int64?) -> Bool {
        if isReplaced(storeFile) { return true }
        guard let current = try? context.dataVersion() else { return false }
        return current != shown
    }

    /// Whether the path of `storeFile` names another file now (a rename over it: a key rotation, a restore).
    static func isReplaced(_ storeFile: FileIdentity?) -> Bool {
        guard let storeFile else { return false }
        return FileIdentity(path: storeFile.path) != storeFile
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
