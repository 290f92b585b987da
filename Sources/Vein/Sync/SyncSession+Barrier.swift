import Foundation

/// A migration as a sync barrier (docs/sync.md#migrations), the part that needs no plan: the first replica
/// to migrate publishes its migrated store as the migration's barrier (`SyncBarrier`); a replica behind the
/// relay's newest barrier, or migrated and not yet moved onto one, is refused by push and pull, and its
/// changes stay in it. Starting from another replica's barrier needs the plan, and lives with the
/// migrator (`Migration/SyncSession+Migration.swift`). Segments at an older version than the store's are
/// passed over by a pull: the replica that wrote them carries their changes when it migrates
/// (ARCHITECTURE.md I23).
extension SyncSession {
    /// What finishing a migration did on the relay.
    package enum MigrationOutcome: Equatable, Sendable {
        /// Nothing to do: the store was not migrated since it last synced.
        case current
        /// This replica was the first at the new version, and published the barrier of `migration`.
        case published(migration: UInt32)
        /// Another replica published `migration` first; this one starts from it, with `carried` rows and
        /// links of its own written again.
        case rebased(migration: UInt32, carried: Int)
    }

    /// Before a synced store migrates: refuses while rows are set aside, and, while no replica has
    /// migrated, merges what the others sent and sends what this one has, so the barrier it may publish
    /// holds everything it can.
    package func prepareMigration() throws {
        let open = try SyncConflicts(store: store).list().count
        guard open == 0 else { throw SyncError.conflictsOpen(store.path, count: open) }
        guard try unfinishedMigration() == nil, try newestMigration() <= state().migration else { return }
        try pull()
        try push()
    }

    /// The relay's newest migration barrier (0: none).
    func newestMigration() throws -> UInt32 { try relay.backend.migrations().last ?? 0 }

    /// The token of this store's own newest migration record not yet followed by a finished barrier.
    package func unfinishedMigration() throws -> Int64? {
        let state = try self.state()
        return try database.scalar(#"SELECT max("token") FROM "\#(ChangeLogSchema.transactions)" WHERE "token" > ? AND "replica" = ? AND "kind" = ?"#,
                                   [.integer(state.sentThrough), .text(replica), .text(TransactionKind.schema.rawValue)])?.int64
    }

    /// Refuses to sync a store the relay's replicas migrated past, or one migrated and not yet moved onto
    /// its barrier: either would mix two schemas' changes.
    func refuseAcrossMigration() throws {
        let state = try self.state()
        let newest = try newestMigration()
        if newest > state.migration {
            throw SyncError.mustMigrate(relay.location, migration: newest, version: store.manifest.version.description)
        }
        if let token = try unfinishedMigration() { throw SyncError.migrationUnfinished(store.path, commit: token) }
    }

    // MARK: Publishing

    /// Seals the store as migration `number`'s barrier, covering every segment it merged and sent; then
    /// records it, its stamps cleared as every replica's are at a barrier.
    func publish(_ number: UInt32) throws -> UInt32 {
        try catchUpKey()
        let covers = try SyncState.progress(in: database)
        let barrier = SyncBarrier(number: number, schemaVersion: store.manifest.version.description, manifestSHA256: store.manifest.sha256,
                                  covers: covers)
        // The copy sealed is made beside the store: a killed run's is removed by the store's next command.
        let (directory, name) = FileSystem.splitPath(store.realPath)
        let scratch = (directory.isEmpty ? "." : directory) + "/.\(name).\(StagedFile.Tag.scratch.rawValue)-\(ULID.make())"
        let (header, _) = try Self.naming { try relay.backend.writing(migration: number) { path in
            try SnapshotSealing.seal(store, scratch: scratch, to: path, key: keys.current, note: barrier.encoded) { last, replica in
                SealedHeader(kind: .snapshot, generation: keys.epoch, sequence: UInt64(number), storeID: relay.syncID, replicaID: replica,
                             keyID: keys.current.id, previousDigest: Self.zeroDigest, lastToken: last.token, lastClock: last.clock)
            }
        } }
        try store.transaction(.immediate) {
            var state = try self.state()
            try database.execute(#"DELETE FROM "\#(SyncState.stamps)""#)
            // What the snapshot holds is sent; later commits are stamped and sent as segments.
            state.migration = number
            state.sentThrough = max(state.sentThrough, header.lastToken)
            state.stampedThrough = header.lastToken
            try state.write(to: database)
        }
        return number
    }

    /// The token after which this replica's own commits are not in `barrier`: those of its segments the
    /// barrier does not cover, and those it never sent.
    func ownCommitsNotCovered(by barrier: SyncBarrier) throws -> Int64 {
        let state = try self.state()
        let sent = try SyncState.progress(in: database)[replica]?.sequence ?? 0
        let covered = barrier.covers[replica]?.sequence ?? 0
        if covered >= sent { return state.sentThrough }
        if covered > 0 {
            guard let header = try Self.naming({ try relay.backend.header(ofSegment: replica, covered) }) else {
                throw SyncError.damaged(file: relay.backend.segmentName(of: replica, covered), reason: "it is missing")
            }
            return header.lastToken
        }
        // None of its segments is covered: its commits from the first one sent on.
        let first = try openSegment(of: replica, 1, after: Self.zeroDigest).2
        return (first.transactions.first?.token ?? 1) - 1
    }
}

/// One of a relay's snapshots, the sync's first or a migration's barrier, unsealed into a scratch store
/// beside a file (the same file system), encrypted under the one-time key it was sealed with; removed by
/// `discard`.
struct SyncBarrierCopy {
    /// What the barrier covers; nil for the sync's first snapshot (`number` 0), which covers no segment.
    let barrier: SyncBarrier?
    let path: String
    let copyKey: CipherKey
    /// Whether the store it was sealed from was encrypted.
    let sourceEncrypted: Bool
    private let staged: StagedFile

    init(relay: SyncRelay, keys: SyncKeyChain, number: UInt32, beside target: String) throws {
        let name = number > 0 ? relay.backend.migrationName(number) : relay.backend.snapshotName
        staged = try StagedFile(target: target, tag: StagedFile.Tag.restoring.rawValue, mode: 0o600, keepsMode: false, placement: .create)
        do {
            let staged = self.staged
            let unseal = { (file: String) throws -> GenerationReader.Snapshot in
                var epoch = SyncRelay.firstEpoch
                return try GenerationReader.Snapshot.unseal(file, place: { header in
                    try relay.check(header, file: name, kind: .snapshot, replica: header.replicaID, sequence: UInt64(number))
                    epoch = header.generation
                }, keys: { id in try keys.key(epoch: epoch, id: id, file: name) }, into: staged.descriptor, path: staged.temporary)
            }
            let snapshot: GenerationReader.Snapshot = try SyncSession.naming {
                if number > 0 { return try relay.backend.reading(migration: number, unseal) }
                return try relay.backend.reading(snapshot: unseal)
            }
            if number > 0 {
                let barrier = try SyncBarrier(decoding: snapshot.note, file: name)
                guard barrier.number == number else {
                    throw SyncError.damaged(file: name, reason: "it says it is migration \(barrier.number)'s snapshot")
                }
                self.barrier = barrier
            } else {
                barrier = nil
            }
            copyKey = snapshot.copyKey
            sourceEncrypted = snapshot.sourceEncrypted
            path = staged.temporary
        } catch {
            staged.discard()
            throw error
        }
    }

    func discard() {
        staged.discard()
        FileSystem.removeDatabaseFiles(path)  // and what opening or attaching it left beside it
    }
}
