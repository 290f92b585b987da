import Foundation

/// `vein backup --continuous` (docs/backup.md#continuous-backups): a store's change log sent to a folder
/// as sealed files. A generation is a snapshot and the numbered segments after it, each segment the log's
/// transactions after the last one sent; a pass sends everything committed before it began, and a folder
/// is written by one pass at a time (its lock).
///
/// A new generation starts with a new snapshot when the chain cannot go on: the first pass, another
/// backup key (a key rotation), another file behind the store (a restore or a copy put in its place), a log
/// pruned past what was sent, a purge of what was not yet sent, a migration, writes another program made,
/// or segments grown larger than their snapshot. Every file is sealed and in place before the store records it sent it (ARCHITECTURE.md
/// I21), so a pass
/// killed at any point leaves a chain the next pass continues.
package struct ContinuousBackup {
    package struct Policy: Sendable {
        /// Generations whose moments all lie further back than this are removed.
        package var keepDays: Int = 7
        /// The most transactions one segment carries.
        package var transactionsPerSegment = 10_000

        package init() {}
    }

    package enum Step: Equatable, Sendable {
        case snapshot(generation: UInt32, reason: String, bytes: Int)
        case segment(generation: UInt32, sequence: UInt64, transactions: Int, bytes: Int)
        case outsideWrites(rows: Int64)
        case removedGeneration(UInt32)
    }

    package let store: Store
    package let folder: BackupFolder
    let key: BackupKey
    let policy: Policy

    /// The end of the chain: what the next file follows.
    struct Tail {
        var header: SealedHeader
        var digest: [UInt8]
        var snapshotBytes: Int
        var segmentBytes: Int
        /// Why the generation cannot be continued though its last file can be read (a segment missing
        /// before it): nothing sent after a gap would restore.
        var gap: String? = nil
    }

    /// The backup of `store` in `destination`. A new or empty folder is checked here and made by the first
    /// pass (`run`), so a pass refused before it (no key) leaves nothing behind.
    package static func folder(for store: Store, at destination: String) throws -> BackupFolder {
        guard try ChangeLogSchema.isKept(in: store.database) else { throw BackupError.noChangeLog(store.path) }
        let storeID = try BackupProgress.storeID(of: store)
        let folder = FileSystem.fileExists(destination + "/" + BackupFolder.markerName)
            ? try BackupFolder.open(destination) : try BackupFolder.planned(destination, storeID: storeID)
        guard folder.storeID == storeID else { throw BackupError.anotherStore(destination, store: store.path) }
        return folder
    }

    package init(store: Store, folder: BackupFolder, key: BackupKey, policy: Policy = Policy()) {
        self.store = store
        self.folder = folder
        self.key = key
        self.policy = policy
    }

    /// One pass: sends what was committed before it began, then removes generations the policy no longer
    /// keeps. Returns what it did, in order.
    package func run(now: Date = Date()) throws -> [Step] {
        try folder.makeIfPlanned()
        let lock = try folder.lockForWriting()
        defer { lock.unlock() }
        removeLeftovers()
        var steps: [Step] = []
        let outside = try store.transaction(.immediate) { try ChangeLogSchema.recordOutsideWrites(in: store.database, manifest: store.manifest) }
        if outside > 0 { steps.append(.outsideWrites(rows: outside)) }
        var tail = try readTail()
        var justSnapshotted = false
        while true {
            let (reason, payload) = try decide(after: tail)
            if let reason {
                // A snapshot holds the store as it is: one that does not satisfy the next decision would be
                // followed by another, without end.
                guard !justSnapshotted else { throw BackupError.snapshotNotTaken(folder.path, reason: reason) }
                justSnapshotted = true
                let generation = (tail?.header.generation ?? 0) + 1
                tail = try takeSnapshot(generation: generation, after: tail)
                steps.append(.snapshot(generation: generation, reason: reason, bytes: tail!.snapshotBytes))
            } else if let tail0 = tail, !payload.entries.isEmpty {
                justSnapshotted = false
                tail = try writeSegment(payload, after: tail0)
                steps.append(.segment(generation: tail!.header.generation, sequence: tail!.header.sequence,
                                      transactions: payload.entries.count, bytes: tail!.segmentBytes - tail0.segmentBytes))
            } else {
                break
            }
            try record(tail!)
        }
        steps += try removeOldGenerations(now: now)
        return steps
    }

    /// Why the next file must be a new snapshot (nil when a segment may follow), and the transactions a
    /// segment would carry: read in one read transaction, so both are of one moment.
    private func decide(after tail: Tail?) throws -> (String?, SegmentPayload) {
        try store.transaction(.deferred) {
            let db = store.database
            guard let tail else { return ("the first snapshot", SegmentPayload()) }
            let replica = try ChangeLogSchema.replica(in: db) ?? ""
            let lastToken = try db.scalar(#"SELECT max("token") FROM "\#(ChangeLogSchema.transactions)""#)?.int64 ?? 0
            let pruned = try ChangeLogPruning.prunedThrough(in: db)
            if tail.header.keyID != key.id { return ("the backup key changed", SegmentPayload()) }
            if tail.header.replicaID != replica { return ("the store is another file than the one backed up so far", SegmentPayload()) }
            if let pruned, pruned.token > tail.header.lastToken {
                return ("the change log was pruned past what the backup holds (token \(pruned.token))", SegmentPayload())
            }
            if let gap = tail.gap { return (gap, SegmentPayload()) }
            if max(lastToken, pruned?.token ?? 0) < tail.header.lastToken { return ("the store's log is behind its backup", SegmentPayload()) }
            // The same token must be the same commit: a store file put back from an older copy of itself
            // makes new commits under tokens its backup already holds.
            if tail.header.lastToken > 0 {
                let clock = try db.scalar(#"SELECT "clock" FROM "\#(ChangeLogSchema.transactions)" WHERE "token" = ?"#,
                                          [.integer(tail.header.lastToken)])?.int64 ?? (pruned?.token == tail.header.lastToken ? pruned?.clock : nil)
                if let clock, clock != tail.header.lastClock {
                    return ("the store's log is not the one backed up so far (its commit \(tail.header.lastToken) differs)", SegmentPayload())
                }
            }
            if let purged = try ChangeLogPurge.purgedThrough(in: db), purged > tail.header.lastToken {
                return ("an object's history was purged (through token \(purged))", SegmentPayload())
            }
            var payload = try SegmentPayload.read(from: db, after: tail.header.lastToken, limit: policy.transactionsPerSegment)
            if let index = payload.entries.firstIndex(where: { $0.kind != .changes }) {
                if index == 0 {
                    return (payload.entries[0].kind == .schema ? "a migration (token \(payload.entries[0].token))"
                                                               : "writes made outside Vein (token \(payload.entries[0].token))", SegmentPayload())
                }
                // What came before the migration goes on the old chain; the new snapshot follows it.
                payload = try SegmentPayload.read(from: db, after: tail.header.lastToken, limit: index)
            } else if payload.entries.isEmpty, tail.segmentBytes > max(tail.snapshotBytes, 1 << 20) {
                return ("the segments outgrew their snapshot", SegmentPayload())
            }
            return (nil, payload)
        }
    }

    private func takeSnapshot(generation: UInt32, after tail: Tail?) throws -> Tail {
        let path = folder.snapshotPath(generation)
        let written = try SnapshotSealing.seal(store, scratch: folder.path + "/.snapshot.vein", to: path, key: key) { last, replica in
            try folder.makeGeneration(generation)
            return SealedHeader(kind: .snapshot, generation: generation, sequence: 0, storeID: folder.storeID, replicaID: replica, keyID: key.id,
                         previousDigest: tail?.digest ?? [UInt8](repeating: 0, count: 32), lastToken: last.token, lastClock: last.clock)
        }
        return Tail(header: written.header, digest: written.digest, snapshotBytes: Int(FileSystem.fileSize(path)), segmentBytes: 0)
    }

    private func writeSegment(_ payload: SegmentPayload, after tail: Tail) throws -> Tail {
        let sequence = tail.header.sequence + 1
        let generation = tail.header.generation
        let path = folder.segmentPath(generation, sequence)
        let header = SealedHeader(kind: .segment, generation: generation, sequence: sequence, storeID: folder.storeID,
                                  replicaID: tail.header.replicaID, keyID: key.id, previousDigest: tail.digest,
                                  lastToken: payload.entries.last!.token, lastClock: payload.entries.last!.clock)
        let written = try SealedFile.write(to: path, header: header, key: key, prefix: payload.bytes)
        return Tail(header: written.header, digest: written.digest, snapshotBytes: tail.snapshotBytes,
                    segmentBytes: tail.segmentBytes + Int(FileSystem.fileSize(path)))
    }

    /// The last file of the newest generation: its header, and its digest hashed from the file.
    private func readTail() throws -> Tail? {
        guard let generation = try folder.generations().last else { return nil }
        let snapshot = folder.snapshotPath(generation)
        guard FileSystem.fileExists(snapshot) else {
            // Without segments: a pass was killed while it began the generation, and its folder goes. With
            // segments, the snapshot was removed by something else: nothing is deleted, and the next
            // generation begins after it.
            let segments = try folder.segments(of: generation)
            guard let last = segments.last else {
                try folder.removeGeneration(generation)
                return try readTail()
            }
            let path = folder.segmentPath(generation, last)
            return Tail(header: try SealedFile.header(of: path), digest: try SealedFile.digest(of: path), snapshotBytes: 0, segmentBytes: 0,
                        gap: "generation \(generation) has lost its snapshot")
        }
        let segments = try folder.segments(of: generation)
        let last = segments.last.map { folder.segmentPath(generation, $0) } ?? snapshot
        let header = try SealedFile.header(of: last)
        guard header.storeID == folder.storeID else {
            throw BackupError.damaged(file: last, reason: "it belongs to another store (store id \(header.storeID), not \(folder.storeID))")
        }
        let segmentBytes = segments.reduce(0) { $0 + Int(FileSystem.fileSize(folder.segmentPath(generation, $1))) }
        // A segment is small: hashed. A snapshot may be large: the store's record of sending it gives its
        // digest, when the record names this very file (its nonce, new for every file; a folder copied and
        // written to apart holds another file under the same number).
        let recorded = try store.transaction(.deferred) { try BackupProgress.read(backupID: folder.backupID, in: store.database) }
        let digest = segments.isEmpty ? recorded.flatMap { $0.generation == generation && $0.sequence == 0 && $0.nonce == header.nonce ? $0.digest : nil } : nil
        var tail = Tail(header: header, digest: try digest ?? SealedFile.digest(of: last), snapshotBytes: Int(FileSystem.fileSize(snapshot)),
                        segmentBytes: segmentBytes)
        if let index = segments.indices.first(where: { segments[$0] != UInt64($0 + 1) }) {
            tail.gap = "generation \(generation) is not whole (its segment \(index + 1) is missing)"
        }
        return tail
    }

    /// The store's record of the last file sent.
    private func record(_ tail: Tail) throws {
        try store.transaction(.immediate) {
            try BackupProgress(generation: tail.header.generation, sequence: tail.header.sequence, digest: tail.digest,
                               lastToken: tail.header.lastToken, nonce: tail.header.nonce).write(backupID: folder.backupID, in: store.database)
        }
    }

    /// Generations all of whose moments lie before `keepDays`: every generation before the newest one
    /// whose snapshot is older than that.
    private func removeOldGenerations(now: Date) throws -> [Step] {
        let generations = try folder.generations()
        let horizon = HybridClock.lowerBound(of: now.addingTimeInterval(-Double(policy.keepDays) * 86_400))
        var keepFrom: UInt32?
        for generation in generations.reversed() where FileSystem.fileExists(folder.snapshotPath(generation)) {
            let header = try SealedFile.header(of: folder.snapshotPath(generation))
            if header.lastClock > 0, header.lastClock < horizon { keepFrom = generation; break }
        }
        guard let keepFrom else { return [] }
        var steps: [Step] = []
        for generation in generations where generation < keepFrom {
            try folder.removeGeneration(generation)
            steps.append(.removedGeneration(generation))
        }
        return steps
    }

    private func removeLeftovers() {
        StagedFile.removeLeftovers(of: folder.path + "/.snapshot.vein")
        if let generations = try? folder.generations() {
            for generation in generations {
                StagedFile.removeLeftovers(in: folder.generationPath(generation), tag: StagedFile.Tag.sealing.rawValue)
            }
        }
    }
}
