import Foundation

/// One replica's side of a sync (docs/sync.md): sending this store's own commits to the relay as sealed
/// segments (`push`), and merging the segments of the other replicas (`pull`). Every step is a write
/// transaction of the store that records what it sent or applied with the rows it wrote, so a sync killed
/// at any point resumes without sending or applying anything twice (ARCHITECTURE.md I22).
package final class SyncSession {
    package let store: Store
    package let relay: SyncRelay
    /// This store file's replica id (its change log's).
    package let replica: String
    /// The sync key this replica holds, and the older epochs' read through it.
    var keys: SyncKeyChain
    let keyring: (any Keyring)?
    var database: Database { store.database }

    /// Own transactions per segment: a segment is read and sealed in memory.
    static let transactionsPerSegment = 2_000
    static let zeroDigest = [UInt8](repeating: 0, count: 32)

    /// The sync of `store`, through the relay and with the key its sync record names.
    package init(store: Store, keyring: (any Keyring)? = SecretServiceKeyring()) throws {
        guard let state = try SyncState.read(from: store.database) else { throw SyncError.notSynced(store.path) }
        let relay = try SyncRelay.open(state.relay)
        guard relay.syncID == state.syncID else { throw SyncError.otherRelay(store.path, relay: state.relay, sync: relay.syncID) }
        self.store = store
        self.relay = relay
        self.replica = try ChangeLogSchema.replica(in: store.database) ?? ""
        self.keyring = keyring
        keys = SyncKeyChain(relay: relay, epoch: state.epoch, current: try SyncKey.key(of: state, keyring: keyring),
                            keySource: state.keyFile ?? SyncKeyring.source)
    }

    /// Whether `store` is a replica of a sync.
    package static func isSynced(_ store: Store) throws -> Bool { try SyncState.read(from: store.database) != nil }

    // MARK: Beginning and joining

    /// Gives `store` a sync identity (`vein sync init`): makes the relay at `relayPath` (a new or empty
    /// folder, a database without a relay) with a snapshot of the store, and the sync key: in `keyFile`
    /// (made when it does not exist), or without one a new key kept in `keyring`, and forgotten again if
    /// the relay cannot be made.
    @discardableResult
    package static func begin(_ store: Store, relay relayPath: String, keyFile: String?,
                              keyring: (any Keyring)? = SecretServiceKeyring()) throws -> SyncRelay {
        guard try ChangeLogSchema.isKept(in: store.database) else { throw SyncError.noChangeLog(store.path) }
        if let state = try SyncState.read(from: store.database) { throw SyncError.alreadySynced(store.path, relay: state.relay) }
        let syncID = ULID.make().description
        let key: BackupKey
        if let keyFile, FileSystem.fileExists(keyFile) {
            key = try readKey(keyFile)
        } else {
            key = try BackupKey.random()
            if let keyFile { try KeyFile.create(keyFile, key: key.cipherKey) } else {
                try SyncKeyring(keyring).keep(key, of: syncID, relay: relayPath, app: store.meta.app)
            }
        }
        var sent: Int64 = 0
        let made: SyncRelay
        do {
            made = try make(store, relay: relayPath, syncID: syncID, key: key, sent: &sent)
        } catch {
            if keyFile == nil { try? SyncKeyring(keyring).forget(syncID) }
            throw error
        }
        try adopt(store, relay: made, keyFile: keyFile, sentThrough: sent)
        return made
    }

    private static func make(_ store: Store, relay relayPath: String, syncID: String, key: BackupKey, sent: inout Int64) throws -> SyncRelay {
        try SyncRelay.make(at: relayPath, syncID: syncID) { syncID, path, scratch in
            _ = try SnapshotSealing.seal(store, scratch: scratch, to: path, key: key) { last, replica in
                sent = last.token
                return SealedHeader(kind: .snapshot, generation: SyncRelay.firstEpoch, sequence: 0, storeID: syncID, replicaID: replica, keyID: key.id,
                                    previousDigest: zeroDigest, lastToken: last.token, lastClock: last.clock)
            }
        }
    }

    /// Makes a new replica at `destination` (`vein sync join`): the relay's snapshot, copied into a new
    /// store (complete or absent) with a change log and replica id of its own, encrypted as `protection`
    /// says (told whether the synced store is encrypted). The caller opens it and pulls.
    package static func join(relay relayPath: String, keyFile: String, to destination: String,
                             protection: (Bool) throws -> StoreCreator.Protection) throws -> StoreCopier.Result {
        try join(relay: relayPath, key: readKey(keyFile), keyFile: keyFile, to: destination, protection: protection)
    }

    /// `join` with the sync key in hand (opened from a wrapped file: `SyncKey.read`).
    package static func join(relay relayPath: String, key: BackupKey, keyFile: String?, to destination: String,
                             protection: (Bool) throws -> StoreCreator.Protection) throws -> StoreCopier.Result {
        let relay = try SyncRelay.open(relayPath)
        guard !FileSystem.fileExists(destination) else { throw StoreError.alreadyExists(destination) }
        StagedFile.removeLeftovers(of: destination, tag: StagedFile.Tag.restoring.rawValue)
        let keySource = keyFile ?? SyncKeyring.source
        // The key given may be of a later key epoch than the snapshot's: the chain reads back to it.
        guard let epoch = try SyncKeyChain.epoch(of: key, relay: relay) else {
            throw SyncError.wrongKey(file: relay.backend.snapshotName, keySource: keySource)
        }
        let chain = SyncKeyChain(relay: relay, epoch: epoch, current: key, keySource: keySource)
        var snapshot = try startingSnapshot(of: relay, keys: chain, beside: destination)
        defer { snapshot.discard() }  // the one held when this returns or throws (a discard is done once)
        // A replica that pruned while the snapshot was read may have published a newer checkpoint and
        // removed segments after this one's: start again from the newest.
        var attempts = 1
        while let gap = try prunedPast(snapshot.note, on: relay) {
            snapshot.discard()
            guard attempts < 3 else { throw SyncError.prunedPast(relay.location, replica: gap.replica, sequence: gap.sequence) }
            attempts += 1
            snapshot = try startingSnapshot(of: relay, keys: chain, beside: destination)
        }
        let chosen = try protection(snapshot.sourceEncrypted)
        let scratch = try Store.open(snapshot.path, realPath: snapshot.path, key: snapshot.copyKey,
                                     encryption: .encrypted(kind: snapshot.copyKey.kindDescription, source: .none), mode: .readWrite)
        defer { try? scratch.close() }
        if let note = snapshot.note {
            try scratch.database.execute(#"INSERT OR REPLACE INTO "_vein_meta" ("key", "value") VALUES (?, ?)"#,
                                         [.text(StoreMeta.syncJoinedKey), .text(note.encoded)])
        }
        return try StoreCopier.copy(scratch, to: destination, protection: chosen, keepsChangeLog: true,
                                    alsoCopying: snapshot.note?.kind == .checkpoint ? SyncSnapshotCopy.checkpointTables : [], readingSource: nil)
    }

    /// The first replica whose segments right after what `note` covers (none: the sync's first snapshot)
    /// are no longer on the relay, with what the note covers of it; nil when a replica starting from it
    /// finds every segment it needs.
    static func prunedPast(_ note: SyncSnapshotNote?, on relay: SyncRelay) throws -> (replica: String, sequence: UInt64)? {
        for (other, range) in try relay.backend.segmentRanges().sorted(by: { $0.key < $1.key }) {
            let covered = note?.covers[other]?.sequence ?? 0
            if range.lowerBound > covered + 1 { return (other, covered) }
        }
        return nil
    }

    /// Where a new replica starts: the newest checkpoint of the newest migration, else that migration's
    /// barrier, else the sync's first snapshot. The segments it covers are in it (and may be pruned).
    static func startingSnapshot(of relay: SyncRelay, keys: SyncKeyChain, beside destination: String) throws -> SyncSnapshotCopy {
        let migration = try relay.backend.snapshots(.migration).last ?? 0
        if let (_, copy) = try readingNewestCheckpoint(of: relay, { number in
            try SyncSnapshotCopy(relay: relay, keys: keys, kind: .checkpoint, number: number, beside: destination)
        }) {
            if copy.note?.migration == migration { return copy }
            copy.discard()  // taken before the newest migration
        }
        return try SyncSnapshotCopy(relay: relay, keys: keys, kind: migration > 0 ? .migration : nil, number: migration, beside: destination)
    }

    /// The relay's newest checkpoint, as listed, and what `read` made of it; nil when there is none. A
    /// checkpoint removed between listing it and reading it (another replica's prune, which published a
    /// newer one first) is passed over for the newest, a few times.
    static func readingNewestCheckpoint<T>(of relay: SyncRelay, _ read: (UInt32) throws -> T) throws -> (number: UInt32, value: T)? {
        var attempts = 1
        while true {
            guard let number = try relay.backend.snapshots(.checkpoint).last else { return nil }
            do {
                return (number, try read(number))
            } catch FileError.notFound(let name) where name == relay.backend.snapshotName(.checkpoint, number) && attempts < 3 {
                attempts += 1
            }
        }
    }

    /// Records in `store` that it syncs through `relay` from its commit `sentThrough` on, with the key in
    /// `keyFile` (or the keyring's newest of the sync) and that key's epoch.
    package static func adopt(_ store: Store, relay: SyncRelay, keyFile: String?, sentThrough: Int64? = nil,
                              keyring: (any Keyring)? = SecretServiceKeyring()) throws {
        let replica = try ChangeLogSchema.replica(in: store.database) ?? ""
        let key = try keyFile.map(readKey) ?? SyncKey.fromKeyring(relay: relay.recordedLocation, keyring: keyring)
        guard let epoch = try SyncKeyChain.epoch(of: key, relay: relay) else {
            throw SyncError.wrongKey(file: relay.backend.snapshotName, keySource: keyFile ?? SyncKeyring.source)
        }
        try store.transaction(.immediate) {
            if let state = try SyncState.read(from: store.database) { throw SyncError.alreadySynced(store.path, relay: state.relay) }
            for sql in SyncState.createTables { try store.database.execute(sql) }
            let through = try sentThrough ?? ChangeLogSchema.newestCommit(in: store.database).token
            // A replica joined from a migration's barrier or a checkpoint has what it covers.
            let joined = try store.database.scalar(#"SELECT "value" FROM "_vein_meta" WHERE "key" = ?"#, [.text(StoreMeta.syncJoinedKey)])?.string
            let barrier = try joined.map { try SyncSnapshotNote(decoding: $0, file: store.path) }
            try SyncState(syncID: relay.syncID, relay: relay.backend.recordedLocation, keyFile: try keyFile.map(FileSystem.realPath),
                          epoch: epoch, keyID: keyFile == nil && epoch != SyncRelay.firstEpoch ? Hex.encode(Data(key.id)) : nil,
                          migration: barrier?.migration ?? 0, sentThrough: through, stampedThrough: through).write(to: store.database)
            try SyncState.recordProgress(of: replica, sequence: 0, digest: zeroDigest, in: store.database)
            for (other, covered) in barrier?.covers ?? [:] {
                try SyncState.recordProgress(of: other, sequence: covered.sequence, digest: covered.digest, in: store.database)
            }
            try store.database.execute(#"DELETE FROM "_vein_meta" WHERE "key" = ?"#, [.text(StoreMeta.syncJoinedKey)])
        }
        // Known on the relay from now on: pruning waits for what it merges (docs/sync.md#pruning).
        try naming { try relay.backend.register(replica: replica) }
    }

    // MARK: Sending

    /// What one `push` or `pull` did.
    package struct Report: Equatable, Sendable {
        package var segments = 0
        package var transactions = 0
        /// Replicas whose next segment waits for a segment not yet on the relay, with what it waits for.
        package var waiting: [String: String] = [:]
    }

    /// Sends this store's commits made since the last push, as numbered segments in this replica's folder.
    /// `acknowledging`: with nothing to send, a segment without commits is sent when this replica merged
    /// segments its newest one does not say it had: pruning waits for that (docs/sync.md#pruning).
    @discardableResult
    package func push(acknowledging: Bool = false) throws -> Report {
        try refuseForgotten()
        try Self.naming { try relay.backend.register(replica: replica) }  // a join killed before it registered
        try refuseAcrossMigration()
        try catchUpKey()
        let unlock = try relay.backend.lock(replica: replica)
        defer { unlock() }
        var report = Report()
        var acknowledging = acknowledging
        try Self.naming { while try pushOne(&report, acknowledging: &acknowledging) {} }
        return report
    }

    /// Sends one segment, or finds the one a killed push sealed; false when nothing is left to send.
    private func pushOne(_ report: inout Report, acknowledging: inout Bool) throws -> Bool {
        try store.transaction(.immediate) {
            var state = try self.state()
            try SyncMerger(database: database, manifest: store.manifest).stampOwn(&state)
            try refuseUnsendable(after: state.sentThrough)
            let progress = try SyncState.progress(in: database)
            let own = progress[replica] ?? (0, Self.zeroDigest)
            let sequence = own.sequence + 1
            let name = relay.backend.segmentName(of: replica, sequence)
            let payload = try SegmentPayload.read(from: database, after: state.sentThrough, limit: Self.transactionsPerSegment, replica: replica)
            let header: SealedHeader, digest: [UInt8]
            if try relay.backend.hasSegment(of: replica, sequence) {
                // A push killed after sealing the segment and before recording it: the file is what it sent, if
                // it holds this store's next commits (another copy of this file pushing as this replica would not).
                let (found, foundDigest, segment) = try openSegment(of: replica, sequence, after: own.digest)
                let unsent = try SegmentPayload.transactions(in: Array(payload.bytes), file: name)
                let acknowledgement = segment.transactions.isEmpty && found.lastToken == state.sentThrough
                guard acknowledgement || (!segment.transactions.isEmpty && unsent.starts(with: segment.transactions)) else {
                    throw SyncError.damaged(file: name, reason: "it holds other commits than this store's next ones "
                                              + "(another copy of this store file syncs as the same replica)")
                }
                (header, digest) = (found, foundDigest)
                report.transactions += segment.transactions.count
            } else {
                let received = progress.filter { $0.key != replica }.mapValues(\.sequence)
                let last: (token: Int64, clock: Int64)
                if let entry = payload.entries.last {
                    last = (entry.token, entry.clock)
                } else {
                    try state.write(to: database)  // what stampOwn did
                    guard acknowledging, try acknowledgesMore(received, than: own.sequence) else { return false }
                    acknowledging = false
                    last = (state.sentThrough, HybridClock.next(after: nil))
                }
                let planned = SealedHeader(kind: .segment, generation: keys.epoch, sequence: sequence, storeID: relay.syncID, replicaID: replica,
                                           keyID: keys.current.id, previousDigest: own.digest, lastToken: last.token, lastClock: last.clock)
                (header, digest) = try relay.backend.writing(segment: replica, sequence) { path in
                    try SealedFile.write(to: path, header: planned, key: keys.current, prefix: SyncSegment.encode(received: received, payload: payload))
                }
                report.transactions += payload.entries.count
            }
            report.segments += 1
            try SyncState.recordProgress(of: replica, sequence: sequence, digest: digest, in: database)
            state.sentThrough = header.lastToken
            try state.write(to: database)
            return true
        }
    }

    /// Whether `merged` says more than this replica's segment `newest` said it had received.
    private func acknowledgesMore(_ merged: [String: UInt64], than newest: UInt64) throws -> Bool {
        let said = newest > 0 ? try received(in: replica, newest) : [:]
        return merged.contains { $0.value > (said[$0.key] ?? 0) }
    }

    /// A write made outside Vein or a migration cannot be sent as changes: said, and nothing is sent.
    private func refuseUnsendable(after token: Int64) throws {
        let row = try database.rows(#"SELECT "token", "kind" FROM "\#(ChangeLogSchema.transactions)" WHERE "token" > ? AND "replica" = ? AND "kind" <> 'changes' ORDER BY "token" LIMIT 1"#,
                                    [.integer(token), .text(replica)]).first
        guard let row, let kind = row[1].string else { return }
        guard kind == TransactionKind.outside.rawValue else { throw SyncError.migrationUnfinished(store.path, commit: row[0].int64 ?? 0) }
        throw SyncError.unsendable(store.path, reason: "another program wrote to it (commit \(row[0].int64 ?? 0) records writes made outside "
                                   + "Vein), and those writes are not in its change log")
    }

    // MARK: Receiving

    /// Merges every segment of the other replicas not yet applied, each in its own transaction, in an
    /// order that keeps each replica's own order and what each had received when it wrote.
    @discardableResult
    package func pull() throws -> Report {
        try refuseForgotten()
        try Self.naming { try relay.backend.register(replica: replica) }  // a join killed before it registered
        try refuseAcrossMigration()
        try refuseRelayGoneBack()
        var report = Report()
        var progressed = true
        try Self.naming {
            while progressed {
                progressed = false
                report.waiting = [:]
                for other in try relay.backend.replicas() where other != replica {
                    if try pullOne(from: other, &report) { progressed = true }
                }
            }
            // What this replica's own commits freed or took of a set-aside row's values.
            try SyncConflicts(store: store).settle()
        }
        return report
    }

    /// Applies `other`'s next segment when it is on the relay and everything it depends on is here.
    private func pullOne(from other: String, _ report: inout Report) throws -> Bool {
        let progress = try SyncState.progress(in: database)
        let before = progress[other] ?? (0, Self.zeroDigest)
        let sequence = before.sequence + 1
        guard try relay.backend.hasSegment(of: other, sequence) else {
            // Later segments without this one: not yet delivered (a folder synced by another program may
            // deliver out of order), or pruned before this replica merged it, which a checkpoint holding it
            // tells (docs/sync.md#pruning); never skipped silently.
            if let range = try relay.backend.segmentRange(of: other), range.lowerBound > sequence {
                if try (newestCheckpoint()?.covers[other]?.sequence ?? 0) >= sequence {
                    throw SyncError.prunedPast(relay.location, replica: other, sequence: before.sequence)
                }
                report.waiting[other] = "its segment \(sequence) is not on the relay, and later ones are"
            }
            return false
        }
        let (_, digest, segment) = try openSegment(of: other, sequence, after: before.digest)
        for (needed, through) in segment.received.sorted(by: { $0.key < $1.key }) where needed != replica && (progress[needed]?.sequence ?? 0) < through {
            report.waiting[other] = "its segment \(sequence) waits for replica \(needed)'s segment \(through)"
            return false
        }
        let version = store.manifest.version.description
        var passedOver = false
        if let differing = segment.transactions.first(where: { $0.schemaVersion != version }) {
            // Commits at a version this store migrated from: their replica writes them again when it migrates (I23).
            guard try Set(segment.transactions.map(\.schemaVersion)).allSatisfy(migrated(from:)) else {
                throw SyncError.schemaDiffers(replica: other, version: differing.schemaVersion, local: version)
            }
            passedOver = true
        }
        let recorder = database.transactionObserver as? ChangeRecorder
        recorder?.merging = (other, segment.transactions.map(\.clock).max() ?? 0)
        defer { recorder?.merging = nil }
        let merger = try SyncMerger(database: database, manifest: store.manifest)
        let applied: Bool = try store.transaction(.immediate) {
            // Another process may have applied it meanwhile.
            guard try SyncState.progress(in: database)[other]?.sequence ?? 0 == before.sequence else { return false }
            if passedOver {
                try SyncState.recordProgress(of: other, sequence: sequence, digest: digest, in: database)
                return true
            }
            var state = try self.state()
            try SyncMerger(database: database, manifest: store.manifest).stampOwn(&state)
            try state.write(to: database)
            for transaction in segment.transactions { _ = try merger.merge(transaction) }
            try merger.settle()
            try merger.repair()
            try SyncState.recordProgress(of: other, sequence: sequence, digest: digest, in: database)
            return true
        }
        if applied && !passedOver {
            report.segments += 1
            report.transactions += segment.transactions.count
        }
        return applied
    }

    /// Each replica's last segment this store received must still be on the relay as it was: a relay
    /// restored from an older copy of itself would otherwise hand out different segments under those numbers.
    private func refuseRelayGoneBack() throws {
        for (other, last) in try SyncState.progress(in: database) where last.sequence > 0 {
            // Pruned since it was merged: its replica's later segments are there (a relay gone back has none).
            if let range = try relay.backend.segmentRange(of: other), range.lowerBound > last.sequence { continue }
            let digest = try relay.backend.digest(of: other, last.sequence)
            // Pruned between the two reads.
            if digest == nil, let range = try relay.backend.segmentRange(of: other), range.lowerBound > last.sequence { continue }
            guard digest == last.digest else {
                throw SyncError.relayWentBack(relay.location, replica: other, sequence: last.sequence)
            }
        }
    }

    /// Waits up to `seconds` for the relay to tell of a new segment (a PostgreSQL relay's notification);
    /// false after `seconds` or at once for a folder, which tells nothing.
    package func waitForNews(seconds: Double) throws -> Bool {
        try relay.backend.waitForNews(seconds: seconds)
    }

    /// The relay opened again on a connection of its own, for a sync that waits for news while its session
    /// works; nil when the relay tells of nothing (a folder).
    package func listener() throws -> SyncRelay? {
        guard relay.backend.tellsOfNews else { return nil }
        return try SyncRelay.open(relay.recordedLocation)
    }

    // MARK: Shared steps

    /// Whether this store was migrated from `version` since it began syncing (then a segment made at it is passed over).
    private func migrated(from version: String) throws -> Bool {
        try state().migration > 0
            && database.scalar("SELECT 1 FROM \(StoreFormat.migrations) WHERE \"fromVersion\" = ?", [.text(version)]) != nil
    }

    func state() throws -> SyncState {
        guard let state = try SyncState.read(from: database) else { throw SyncError.notSynced(store.path) }
        return state
    }

    /// Opens `owner`'s segment `sequence`: where it belongs, sealed under the sync key, following the
    /// segment before it (`previous`'s digest), whole.
    /// `previous` nil: a segment read alone, whose place in the chain is not checked.
    func openSegment(of owner: String, _ sequence: UInt64, after previous: [UInt8]?) throws -> (SealedHeader, [UInt8], SyncSegment) {
        let file = relay.backend.segmentName(of: owner, sequence)
        var payload: [UInt8] = []
        var epoch = SyncRelay.firstEpoch
        let (header, digest) = try relay.backend.reading(segment: owner, sequence) { path in
            try SealedFile.open(path, place: {
                try relay.check($0, file: file, kind: .segment, replica: owner, sequence: sequence)
                epoch = $0.generation
            }, key: { id in try keys.key(epoch: epoch, id: id, file: file) }) {
                payload.append(contentsOf: $0)
            }
        }
        guard previous == nil || header.previousDigest == previous else {
            throw BackupError.damaged(file: file, reason: sequence == 1 ? "it is not the first segment of its replica (the chain's digest differs)"
                                      : "it does not follow segment \(sequence - 1) (the chain's digest differs)")
        }
        let segment = try SyncSegment(decoding: payload, file: file)
        // A segment without commits acknowledges what its replica merged (`push(acknowledging:)`).
        guard segment.transactions.isEmpty || segment.transactions.last?.token == header.lastToken,
              segment.transactions.allSatisfy({ $0.replica == owner && $0.kind == .changes }) else {
            throw BackupError.damaged(file: file, reason: "its header and its commits disagree")
        }
        return (header, digest, segment)
    }

    /// What `owner`'s segment `sequence` says its replica had received: the whole file is authenticated,
    /// and only the start of its payload kept (a segment of many commits is not held in memory).
    func received(in owner: String, _ sequence: UInt64) throws -> [String: UInt64] {
        let file = relay.backend.segmentName(of: owner, sequence)
        var start: [UInt8] = []
        var epoch = SyncRelay.firstEpoch
        _ = try Self.naming { try relay.backend.reading(segment: owner, sequence) { path in
            try SealedFile.open(path, place: {
                try relay.check($0, file: file, kind: .segment, replica: owner, sequence: sequence)
                epoch = $0.generation
            }, key: { id in try keys.key(epoch: epoch, id: id, file: file) }) { piece in
                if start.count < Self.receivedPrefixLength { start.append(contentsOf: piece.prefix(Self.receivedPrefixLength - start.count)) }
            }
        } }
        return try Self.naming { try SyncSegment.received(in: start, file: file).received }
    }

    /// Enough of a payload's start for what a segment says it received, whatever the number of replicas.
    static let receivedPrefixLength = 1 << 20

    /// Runs `body`, naming a damaged file of the relay as sync's (the sealed files' reader speaks of backups).
    static func naming<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch BackupError.damaged(let file, let reason) {
            throw SyncError.damaged(file: file, reason: reason)
        }
    }

    /// A raw key file's key (a wrapped one needs its passphrase: `SyncKey.read`).
    static func readKey(_ keyFile: String) throws -> BackupKey { try SyncKey.read(keyFile).key }

}

extension SyncSession {
    /// What `vein sync status` shows: read from the store and the relay's listing, decrypting nothing.
    package struct Status: Sendable {
        package struct Replica: Sendable {
            package let replica: String
            /// The newest of its segments on the relay (0: none), and how many are there: those before were
            /// pruned (docs/sync.md#pruning).
            package let newest: Int
            package let onRelay: Int
            package let merged: Int
            /// Forgotten by a replica (`forget`): pruning waits for it no more.
            package let forgotten: Bool
            /// When it last wrote, as its newest segment's header says (nil before its first).
            package let lastSeen: Date?
        }
        package let syncID: String
        package let relay: String
        package let replica: String
        /// This replica's commits not yet sent.
        package let unsent: Int
        package let replicas: [Replica]
        /// Rows set aside for a unique value (`SyncConflicts`).
        package let conflicts: Int
        /// The key epoch of the key this replica holds, and the relay's newest.
        package let keyEpoch: UInt32
        package let relayKeyEpoch: UInt32
        /// The store's schema version, the migration barrier it starts from, and the relay's newest (docs/sync.md#migrations).
        package let schemaVersion: String
        package let migration: UInt32
        package let relayMigration: UInt32
    }

    package func status() throws -> Status {
        let state = try state()
        let progress = try SyncState.progress(in: store.database)
        let unsent = try store.database.scalar(#"SELECT count(*) FROM "\#(ChangeLogSchema.transactions)" WHERE "token" > ? AND "replica" = ?"#,
                                               [.integer(state.sentThrough), .text(replica)])?.int64 ?? 0
        let ranges = try relay.backend.segmentRanges()
        let forgotten = try relay.backend.forgottenReplicas()
        let replicas = try Set(ranges.keys).union(progress.keys).union(relay.backend.replicas()).sorted().map { id in
            let range = ranges[id]
            let header = try range.flatMap { range in try Self.naming { try relay.backend.header(ofSegment: id, range.upperBound) } }
            return Status.Replica(replica: id, newest: Int(range?.upperBound ?? 0), onRelay: range?.count ?? 0, merged: Int(progress[id]?.sequence ?? 0),
                                  forgotten: forgotten.contains(id),
                                  lastSeen: header.map { HybridClock.date(of: $0.lastClock) })
        }
        return Status(syncID: state.syncID, relay: relay.location, replica: replica, unsent: Int(unsent), replicas: replicas,
                      conflicts: try SyncConflicts(store: store).list().count, keyEpoch: keys.epoch,
                      relayKeyEpoch: try SyncKeyChain.newestEpoch(of: relay), schemaVersion: store.manifest.version.description,
                      migration: state.migration, relayMigration: try newestMigration())
    }
}
