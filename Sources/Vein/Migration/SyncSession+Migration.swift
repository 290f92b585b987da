import Foundation

/// Finishing a migration of a synced store (docs/sync.md#migrations): publishing it as the sync's barrier
/// (`SyncSession+Barrier.swift`), or, when another replica published first, starting from that barrier
/// with this replica's own changes carried across by the plan (`SyncCarry`). It lives with the migrator
/// because it reads the plan's stages (ARCHITECTURE.md I23).
extension SyncSession {
    /// After the store's migration committed (this session on the store opened again at its new
    /// version, `plan` the plan that migrated it): publishes the barrier, or starts from the one another
    /// replica published. Safe to run again: a run killed before it recorded anything does it again, and
    /// a finished one does nothing.
    package func finishMigration(plan: MigrationPlan) throws -> MigrationOutcome {
        try refuseForgotten()
        let state = try self.state()
        let newest = try newestMigration()
        guard try newest > state.migration || unfinishedMigration() != nil else { return .current }
        // A set-aside row is kept in the old schema's shape, which a barrier does not carry.
        let open = try SyncConflicts(store: store).list().count
        guard open == 0 else { throw SyncError.conflictsOpen(store.path, count: open) }
        if newest > state.migration { return try rebase(onto: newest, plan: plan) }
        do {
            return .published(migration: try publish(state.migration + 1))
        } catch SyncError.snapshotTaken {
            return try rebase(onto: try newestMigration(), plan: plan)
        }
    }

    // MARK: Starting from another replica's barrier

    private func rebase(onto number: UInt32, plan: MigrationPlan) throws -> MigrationOutcome {
        let barrierCopy = try SyncSnapshotCopy(relay: relay, keys: keys, kind: .migration, number: number, beside: store.path)
        defer { barrierCopy.discard() }
        guard let barrier = barrierCopy.note else { return .current }  // a numbered snapshot always has one
        guard barrier.schemaVersion == store.manifest.version.description, barrier.manifestSHA256 == store.manifest.sha256 else {
            let theirs = barrier.schemaVersion == store.manifest.version.description
                ? "\(barrier.schemaVersion) of another schema (their manifests differ)" : barrier.schemaVersion
            throw SyncError.migrationDiffers(store.path, migration: number, version: store.manifest.version.description, theirs: theirs)
        }
        let since = try ownCommitsNotCovered(by: barrier)
        // An attached database is read with the connection's default cipher settings, fixed at ATTACH.
        try database.execute("PRAGMA cipher_default_page_size = \(Database.cipherPageSize)")
        try database.attach(barrierCopy.path, as: SyncCarry.barrierSchema, keyArgument: barrierCopy.copyKey.attachArgument)
        defer { try? database.execute("DETACH DATABASE \"\(SyncCarry.barrierSchema)\"") }
        let carried: Int = try store.transaction(.immediate) {
            var state = try self.state()
            guard state.migration < number else { return -1 }  // another process finished it meanwhile
            var reader = ChangeLogReader()
            reader.afterToken = since
            reader.replica = replica
            let carry = SyncCarry(database: database, manifest: store.manifest, plan: plan)
            let touched = try carry.touched(by: try reader.transactions(in: database))
            let merger = try SyncMerger(database: database, manifest: store.manifest)
            // The rows replaced are one schema record of the log, as a migration is: a continuous backup
            // takes a new snapshot after it. Everything before the carried commit is the barrier's or sent;
            // the commit itself is sent next.
            _ = try ChangeLogSchema.appendRecord(in: database, kind: .schema, replica: replica, author: nil,
                                                 schemaVersion: store.manifest.version.description,
                                                 detail: "from the sync's migration \(number), another replica's migrated rows")
            let before = try ChangeLogSchema.newestCommit(in: database).token
            let written = try carry.carry(touched, merger: merger)
            try merger.repair()
            // The others' segments it covers are in it; after them, each replica's next segment is merged
            // (or passed over, at an older version). Segments this store merged past what it covers were of
            // the old version, which their replicas carry across themselves (I23): not asked for again, as
            // pruning may have removed them on the strength of this store's acknowledgement.
            let progress = try SyncState.progress(in: database)
            for other in Set(progress.keys).union(barrier.covers.keys) where other != replica {
                let covered = barrier.covers[other] ?? (0, Self.zeroDigest)
                let kept = progress[other].map { $0.sequence > covered.sequence ? $0 : covered } ?? covered
                try SyncState.recordProgress(of: other, sequence: kept.sequence, digest: kept.digest, in: database)
            }
            state.migration = number
            state.sentThrough = before
            state.stampedThrough = before
            try state.write(to: database)
            return written
        }
        return carried < 0 ? .current : .rebased(migration: number, carried: carried)
    }

}
