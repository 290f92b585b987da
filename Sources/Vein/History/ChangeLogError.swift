/// What can go wrong reading or keeping a store's change log (docs/history.md).
package enum ChangeLogError: Error, Equatable, Sendable {
    /// The store keeps no change log (made before it, or created without one).
    case notKept(String)
    /// `vein history enable` on a store that keeps one already.
    case alreadyKept(String)
    /// The log's own tables hold what Vein never writes.
    case damaged(String)
    /// A read after a token (or a time) the log no longer holds all of: it was pruned through `prunedThrough`.
    case expired(since: String, prunedThrough: Int64)

    package var message: String {
        switch self {
        case .notKept(let path): return "\(path) keeps no change log"
        case .alreadyKept(let path): return "\(path) keeps a change log already"
        case .damaged(let what): return "the change log is damaged: \(what)"
        case .expired(let since, let pruned):
            return "history since \(since) expired: the log was pruned through token \(pruned), so what came after \(since) is no longer all there"
        }
    }
}
