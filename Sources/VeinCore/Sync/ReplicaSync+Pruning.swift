import Vein

/// Pruning the relay from an app (docs/sync.md#pruning), as `vein sync prune` and `vein sync forget` do
/// from the command line: a relay only grows until its replicas prune it, and an app that syncs for
/// months on a device nobody runs commands on must be able to keep it small.
extension ReplicaSync {
    /// What `prune()` did.
    public struct Pruned: Sendable, Equatable {
        /// The checkpoint this replica published (its number), nil when the relay's newest already held
        /// what this replica sent, or when the store was written to meanwhile.
        public let publishedCheckpoint: Int?
        /// This replica's segments removed.
        public let removedSegments: Int
        /// The replicas (by id) that have not merged every segment the newest checkpoint holds, each with
        /// the last of this replica's segments it has merged: what holds pruning back. One that will never
        /// sync again is `forget(replica:)`.
        public let waitingFor: [String: Int]
    }

    /// Sends and receives, then removes this replica's segments that the relay's newest checkpoint holds
    /// and every replica has merged; publishes a checkpoint of this store first when the newest does not
    /// hold what it sent. Runs on the sync's queue, between rounds.
    @discardableResult
    public func prune() throws -> Pruned {
        try onQueue {
            let report = try session.prune()
            announceMerged()  // what the prune's own pull merged, as a round announces it
            return Pruned(publishedCheckpoint: report.published.map(Int.init), removedSegments: report.removed,
                          waitingFor: report.waitingFor.mapValues { Int(clamping: $0) })
        }
    }

    /// This store's replica id, as the relay and `Pruned.waitingFor` name it.
    public var replicaID: String { session.replica }

    /// Tells the relay to forget the replica `id`, one that will not sync again (a lost device): pruning
    /// waits for it no more, and it is refused if it comes back. Its segments stay: only a replica removes
    /// its own. This replica cannot forget itself.
    public func forget(replica id: String) throws {
        try onQueue { try session.forget(id) }
    }
}
