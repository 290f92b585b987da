import Foundation

/// A migration as a sync barrier (docs/sync.md#migrations), the part that needs no plan: the first replica
/// to migrate publishes its migrated store as the migration's barrier (`SyncSnapshotNote`); a replica behind the
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
        try refuseForgotten()
        let open = try SyncConflicts(store: store).list().count
        guard open == 0 else { throw SyncError.conflictsOpen(store.path, count: open) }
        guard try unfinishedMigration() == nil, try newestMigration() <= state().migration else { return }
        try pull()
        try push()
    }

    /// The relay's newest migration barrier (0: none).
    func newestMigration() throws -> UInt32 { try relay.backend.snapshots(.migration).last ?? 0 }

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
        let manifest = store.manifest
        let header = try seal(.migration, number) { source in
            SyncSnapshotNote(kind: .migration, number: number, migration: number, schemaVersion: manifest.version.description,
                             manifestSHA256: manifest.sha256, covers: try SyncState.progress(in: source, schema: "vein_source"))
        }
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

    /// Seals a copy of the store as the relay's snapshot `kind` `number`, with the note `note` reads in the
    /// copy's snapshot of the store (attached as `vein_source`); a checkpoint takes the stamps and the
    /// set-aside rows too. Returns the sealed header.
    func seal(_ kind: RelaySnapshot, _ number: UInt32, note: @escaping (Database) throws -> SyncSnapshotNote) throws -> SealedHeader {
        // The copy sealed is made beside the store: a killed run's is removed by the store's next command.
        let (directory, name) = FileSystem.splitPath(store.realPath)
        let scratch = (directory.isEmpty ? "." : directory) + "/.\(name).\(StagedFile.Tag.scratch.rawValue)-\(ULID.make())"
        let tables = kind == .checkpoint ? SyncSnapshotCopy.checkpointTables : []
        return try Self.naming { try relay.backend.writing(kind, number) { path in
            try SnapshotSealing.seal(store, scratch: scratch, to: path, key: keys.current, alsoCopying: tables, note: { try note($0).encoded }) { last, replica in
                SealedHeader(kind: .snapshot, generation: keys.epoch, sequence: UInt64(number), storeID: relay.syncID, replicaID: replica,
                             keyID: keys.current.id, previousDigest: Self.zeroDigest, lastToken: last.token, lastClock: last.clock)
            }
        } }.header
    }

    /// The token after which this replica's own commits are not in `barrier`: those of its segments the
    /// barrier does not cover, and those it never sent.
    func ownCommitsNotCovered(by barrier: SyncSnapshotNote) throws -> Int64 {
        let state = try self.state()
        let sent = try SyncState.progress(in: database)[replica]?.sequence ?? 0
        let covered = barrier.covers[replica]?.sequence ?? 0
        if covered >= sent { return state.sentThrough }
        // The first segment it does not cover is on the relay: pruning removes only segments a barrier or
        // checkpoint covers. Its commits, or for one that only acknowledges, what was sent before it.
        let (header, _, next) = try openSegment(of: replica, covered + 1, after: nil)
        return next.transactions.first.map { $0.token - 1 } ?? header.lastToken
    }
}
