import Foundation

/// One of a relay's snapshots (the first, a migration's or a checkpoint), unsealed into a scratch store
/// beside a file (the same file system), encrypted under the one-time key it was sealed with, with its
/// note; removed by `discard`.
struct SyncSnapshotCopy {
    /// What a checkpoint holds beyond the store's tables: the stamps a merge compares with, and the rows
    /// set aside (docs/sync.md#pruning).
    static let checkpointTables = [SyncState.stamps, StoreMeta.syncShadowTable]

    /// What the snapshot covers; nil for the sync's first snapshot, which covers no segment.
    let note: SyncSnapshotNote?
    let path: String
    let copyKey: CipherKey
    /// Whether the store it was sealed from was encrypted.
    let sourceEncrypted: Bool
    private let staged: StagedFile

    /// `kind` nil: the sync's first snapshot.
    init(relay: SyncRelay, keys: SyncKeyChain, kind: RelaySnapshot?, number: UInt32, beside target: String) throws {
        staged = try StagedFile(target: target, tag: StagedFile.Tag.restoring.rawValue, mode: 0o600, keepsMode: false, placement: .create)
        do {
            let (snapshot, note) = try Self.unseal(relay: relay, keys: keys, kind: kind, number: number, into: staged.descriptor, path: staged.temporary)
            self.note = note
            copyKey = snapshot.copyKey
            sourceEncrypted = snapshot.sourceEncrypted
            path = staged.temporary
        } catch {
            staged.discard()
            throw error
        }
    }

    /// The note of the relay's snapshot `kind` `number`, authenticated with the whole file, which is read
    /// and not kept.
    static func note(relay: SyncRelay, keys: SyncKeyChain, kind: RelaySnapshot, number: UInt32) throws -> SyncSnapshotNote {
        let (_, note) = try unseal(relay: relay, keys: keys, kind: kind, number: number, into: nil, path: relay.backend.snapshotName(kind, number))
        guard let note else { throw SyncError.damaged(file: relay.backend.snapshotName(kind, number), reason: "it holds no note") }
        return note
    }

    private static func unseal(relay: SyncRelay, keys: SyncKeyChain, kind: RelaySnapshot?, number: UInt32, into descriptor: Int32?,
                               path: String) throws -> (GenerationReader.Snapshot, SyncSnapshotNote?) {
        let name = kind.map { relay.backend.snapshotName($0, number) } ?? relay.backend.snapshotName
        let unseal = { (file: String) throws -> GenerationReader.Snapshot in
            var epoch = SyncRelay.firstEpoch
            return try GenerationReader.Snapshot.unseal(file, place: { header in
                try relay.check(header, file: name, kind: .snapshot, replica: header.replicaID, sequence: UInt64(kind == nil ? 0 : number))
                epoch = header.generation
            }, keys: { id in try keys.key(epoch: epoch, id: id, file: name) }, into: descriptor, path: path)
        }
        let snapshot: GenerationReader.Snapshot = try SyncSession.naming {
            if let kind { return try relay.backend.reading(kind, number, unseal) }
            return try relay.backend.reading(snapshot: unseal)
        }
        return (snapshot, try kind.map { try SyncSnapshotNote(decoding: snapshot.note, kind: $0, number: number, file: name) })
    }

    func discard() {
        staged.discard()
        FileSystem.removeDatabaseFiles(path)  // and what opening or attaching it left beside it
    }
}
