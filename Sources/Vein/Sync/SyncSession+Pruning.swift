import Foundation

/// Pruning the relay (docs/sync.md#pruning). A checkpoint is one replica's store with its stamps and
/// set-aside rows, sealed with the segments of each replica it holds the commits of (`SyncSnapshotNote`);
/// a new replica starts from the newest checkpoint of the newest migration, so the segments it covers
/// are needed only by replicas that have not merged them yet. A replica removes only its own segments,
/// only those the newest checkpoint covers and every replica known on the relay has acknowledged (its
/// newest segment says it had merged them; a replica is known from its join), and never its newest one.
///
/// Checkpoints only grow: one is published only when it covers at least what the relay's newest covers,
/// so a later one never needs a segment an earlier one let a replica remove, and the older ones are
/// removed once a newer one is there.
extension SyncSession {
    /// What `prune` did.
    package struct Pruning: Equatable, Sendable {
        /// The checkpoint this run published; nil when the relay's newest already covered this replica
        /// (or this store was written to meanwhile).
        package var published: UInt32?
        /// The newest checkpoint, which covers what was removed (0: none).
        package var checkpoint: UInt32 = 0
        /// This replica's segments removed by this run, and the newest of its segments removed so far (0: none).
        package var removed = 0
        package var prunedThrough: UInt64 = 0
        /// Older checkpoints removed by this run.
        package var checkpointsRemoved = 0
        /// Replicas that have not acknowledged every segment the checkpoint covers: the last of this
        /// replica's segments each has (what holds pruning back).
        package var waitingFor: [String: UInt64] = [:]
    }

    /// Sends and merges, publishes a checkpoint when the relay's newest does not cover what this replica
    /// sent, then removes this replica's segments that the checkpoint covers and every known replica has
    /// merged.
    package func prune() throws -> Pruning {
        try pull()
        try push(acknowledging: true)  // what it has not sent, or else what it merged
        let unlock = try relay.backend.lock(replica: replica)
        defer { unlock() }
        var report = Pruning()
        var newest = try newestCheckpoint()
        let sent = try SyncState.progress(in: database)[replica]?.sequence ?? 0
        // Not for this replica's newest segment alone: it is never removed.
        if (newest?.covers[replica]?.sequence ?? 0) + 1 < sent {
            if let published = try publishCheckpoint(knowing: newest) {
                report.published = published.number
                newest = published
            } else {
                newest = try newestCheckpoint()  // another replica's, published meanwhile
            }
        }
        guard let newest else { return report }
        report.checkpoint = newest.number
        // A barrier published since the push may leave this store's checkpoint behind it: nothing is removed.
        try refuseAcrossMigration()
        for older in try relay.backend.snapshots(.checkpoint) where older < newest.number {
            try Self.naming { try relay.backend.removeSnapshot(.checkpoint, older) }
            report.checkpointsRemoved += 1
        }
        // Never the newest segment: it keeps this replica known on the relay, with what it acknowledged.
        let removable = min(newest.covers[replica]?.sequence ?? 0, sent > 0 ? sent - 1 : 0)
        var limit = removable
        let ranges = try relay.backend.segmentRanges()
        let forgotten = try relay.backend.forgottenReplicas()
        for other in try relay.backend.replicas() where other != replica && !forgotten.contains(other) {
            let acknowledged = try ranges[other].map { try acknowledgement(of: other, newest: $0.upperBound) } ?? 0
            if acknowledged < removable { report.waitingFor[other] = acknowledged }
            limit = min(limit, acknowledged)
        }
        // An acknowledgement written after a newer migration's barrier may pass what the barrier covers,
        // which a replica behind it still needs; the barrier is on the relay before any such segment.
        try refuseAcrossMigration()
        guard let oldest = try relay.backend.segmentRange(of: replica)?.lowerBound else { return report }
        if limit >= oldest {
            try Self.naming { try relay.backend.removeSegments(of: replica, through: limit) }
            report.removed = Int(limit - oldest + 1)
        }
        report.prunedThrough = max(limit, oldest - 1)
        return report
    }

    /// The newest checkpoint of the migration this store is at, nil when there is none (or the newest is
    /// of an earlier migration).
    func newestCheckpoint() throws -> SyncSnapshotNote? {
        guard let (_, note) = try newestCheckpointNote() else { return nil }
        return note.migration == (try state().migration) ? note : nil
    }

    /// The relay's newest checkpoint of any migration, as listed, and its note; nil when there is none.
    /// `known`, a note already read, is not read again when it is the newest.
    private func newestCheckpointNote(knowing known: SyncSnapshotNote? = nil) throws -> (number: UInt32, value: SyncSnapshotNote)? {
        try Self.readingNewestCheckpoint(of: relay) { number in
            if let known, known.number == number { return known }
            return try SyncSnapshotCopy.note(relay: relay, keys: keys, kind: .checkpoint, number: number)
        }
    }

    /// Publishes a checkpoint of this store when it covers everything the relay's newest covers and this
    /// store has nothing unsent; nil when it cannot (another replica's segments in the newest not merged
    /// yet, a commit made since the push, or a migration published since).
    /// `known`: a checkpoint's note already read (`newestCheckpoint`), not read again when it is the newest.
    private func publishCheckpoint(knowing known: SyncSnapshotNote?) throws -> SyncSnapshotNote? {
        let manifest = store.manifest
        while true {
            // The one it must cover is the newest, whose number its own follows.
            let newest = try newestCheckpointNote(knowing: known)
            let previous = newest?.value, number = (newest?.number ?? 0) + 1
            let migration = try newestMigration()
            var published: SyncSnapshotNote?
            do {
                _ = try seal(.checkpoint, number) { [replica, store] source in
                    // Read in the copy's snapshot of the store, so the note says what the copy holds.
                    guard let state = try SyncState.read(from: source, schema: "vein_source") else { throw SyncError.notSynced(store.path) }
                    // An own commit not yet sent has no stamps, and a joiner would merge it again when it comes.
                    let newestOwn = try source.scalar(#"SELECT max("token") FROM "vein_source"."\#(ChangeLogSchema.transactions)" WHERE "replica" = ?"#,
                                                      [.text(replica)])?.int64 ?? 0
                    guard newestOwn <= state.sentThrough, state.migration == migration else { throw CheckpointUnready() }
                    let note = SyncSnapshotNote(kind: .checkpoint, number: number, migration: state.migration,
                                                schemaVersion: manifest.version.description, manifestSHA256: manifest.sha256,
                                                covers: try SyncState.progress(in: source, schema: "vein_source"))
                    let same = previous?.migration == note.migration
                    for (other, covered) in same ? previous?.covers ?? [:] : [:] where (note.covers[other]?.sequence ?? 0) < covered.sequence {
                        throw CheckpointUnready()
                    }
                    published = note
                    return note
                }
                return published
            } catch is CheckpointUnready {
                return nil
            } catch SyncError.snapshotTaken {
                continue  // another replica's came first: compared with it now
            }
        }
    }

    /// The last of this replica's segments `other` had merged when it wrote its newest segment.
    private func acknowledgement(of other: String, newest sequence: UInt64) throws -> UInt64 {
        try received(in: other, sequence)[replica] ?? 0
    }
}

extension SyncSession {
    /// Tells the relay to forget `other`, a replica that will not sync again (a lost machine): pruning
    /// waits for it no more, and it is refused if it comes back (docs/sync.md#pruning). Its segments stay:
    /// only a replica removes its own.
    package func forget(_ other: String) throws {
        guard other != replica else { throw SyncError.noSuchReplica(relay.location, replica: other, own: true) }
        guard try relay.backend.replicas().contains(other) else { throw SyncError.noSuchReplica(relay.location, replica: other, own: false) }
        try Self.naming { try relay.backend.forget(replica: other) }
    }

    /// A forgotten replica neither sends nor merges.
    func refuseForgotten() throws {
        if try relay.backend.forgottenReplicas().contains(replica) { throw SyncError.forgotten(relay.location, replica: replica) }
    }
}

/// A checkpoint that would cover less than the relay's newest, or hold a commit not yet sent
/// (`SyncSession.publishCheckpoint`).
private struct CheckpointUnready: Error {}
