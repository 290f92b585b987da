import Foundation

/// Reads one generation of a backup in its chain's order (docs/backup.md#what-is-checked): each file must
/// be where its header says (kind, generation, sequence), of the backup's store, under the key given,
/// follow the file before it (its digest), and be whole (its tag). The first file that is not is refused
/// by name, and nothing after it is read (ARCHITECTURE.md I21).
struct GenerationReader {
    let folder: BackupFolder
    let generation: UInt32
    /// The key for a key id (a generation's files share one).
    let keys: ([UInt8]) throws -> BackupKey

    /// What a snapshot's payload says before the store's bytes: the one-time key of the copy it carries,
    /// and whether the store it was taken of was encrypted.
    struct Snapshot {
        let header: SealedHeader
        let digest: [UInt8]
        let copyKey: CipherKey
        let sourceEncrypted: Bool
        /// What the sealer said of the snapshot beside the store (a sync's migration or checkpoint: `SyncSnapshotNote`).
        let note: String?

        /// Unseals the sealed snapshot `file` (a backup's or a sync relay's) into the file open on
        /// `descriptor` (`path` names it in errors), or only authenticates it and reads its prefix when
        /// `descriptor` is nil; `place` checks its header first.
        static func unseal(_ file: String, place: (SealedHeader) throws -> Void, keys: ([UInt8]) throws -> BackupKey,
                           into descriptor: Int32?, path: String) throws -> Snapshot {
            guard FileSystem.fileExists(file) else { throw BackupError.damaged(file: file, reason: "it is missing") }
            // The prefix is believed only once the tag has been checked: until then a malformed one is only noted.
            var prefix: SnapshotPrefix?, prefixProblem: Error?
            let (header, digest) = try SealedFile.open(file, place: place, key: keys) { piece in
                var body = piece
                if prefix == nil, prefixProblem == nil {
                    do {
                        let parsed = try SnapshotPrefix(decoding: piece, file: file)
                        prefix = parsed
                        body = UnsafeRawBufferPointer(rebasing: piece[parsed.length...])
                    } catch {
                        prefixProblem = error
                    }
                }
                if prefix != nil, let descriptor { try FileSystem.writeAll(descriptor, body, path: path) }
            }
            if let prefixProblem { throw prefixProblem }
            guard let prefix else { throw BackupError.damaged(file: file, reason: "it holds no store") }
            return Snapshot(header: header, digest: digest, copyKey: prefix.copyKey, sourceEncrypted: prefix.sourceEncrypted, note: prefix.note)
        }
    }

    /// Unseals the snapshot into the file open on `descriptor` (`path` names it in errors).
    func unsealSnapshot(into descriptor: Int32, path: String) throws -> Snapshot {
        let file = folder.snapshotPath(generation)
        return try Snapshot.unseal(file, place: { try check($0, file: file, kind: .snapshot, sequence: 0) }, keys: keys,
                                   into: descriptor, path: path)
    }

    /// Reads the segments after the snapshot in order, handing each one's transactions to `body`, until
    /// `body` returns false or none is left. Returns the last segment read (its header and digest), nil when
    /// there is none.
    @discardableResult
    func readSegments(after snapshot: Snapshot, _ body: (SealedHeader, [LoggedTransaction]) throws -> Bool) throws -> (header: SealedHeader, digest: [UInt8])? {
        let present = try folder.segments(of: generation)
        var previous = snapshot.digest
        var last: (header: SealedHeader, digest: [UInt8])?
        for (index, sequence) in present.enumerated() {
            let expected = UInt64(index + 1)
            guard sequence == expected else {
                throw BackupError.damaged(file: folder.segmentPath(generation, expected),
                                          reason: "it is missing: segment \(sequence) follows segment \(expected - 1)")
            }
            let file = folder.segmentPath(generation, sequence)
            var payload: [UInt8] = []
            let (header, digest) = try SealedFile.open(file, place: { try check($0, file: file, kind: .segment, sequence: sequence) }, key: keys) {
                payload.append(contentsOf: $0)
            }
            guard header.replicaID == snapshot.header.replicaID else {
                throw BackupError.damaged(file: file, reason: "it was written from another copy of the store than its snapshot")
            }
            guard header.previousDigest == previous else {
                throw BackupError.damaged(file: file, reason: sequence == 1
                    ? "it does not follow its generation's snapshot (the chain's digest differs)"
                    : "it does not follow segment \(sequence - 1) (the chain's digest differs)")
            }
            let transactions = try SegmentPayload.transactions(in: payload, file: file)
            guard transactions.last?.token == header.lastToken else {
                throw BackupError.damaged(file: file, reason: "its header and its transactions disagree")
            }
            previous = digest
            last = (header, digest)
            guard try body(header, transactions) else { break }
        }
        return last
    }

    /// A file's header against its place: where it lies, which store, which key.
    private func check(_ header: SealedHeader, file: String, kind: SealedHeader.Kind, sequence: UInt64) throws {
        guard header.storeID == folder.storeID else {
            throw BackupError.damaged(file: file, reason: "it belongs to another store (store id \(header.storeID), not \(folder.storeID))")
        }
        guard header.kind == kind, header.generation == generation, header.sequence == sequence else {
            throw BackupError.damaged(file: file, reason: "it says it is \(Self.name(header.kind, header.sequence)) of generation \(header.generation), "
                                      + "not \(Self.name(kind, sequence)) of generation \(generation)")
        }
    }

    static func name(_ kind: SealedHeader.Kind, _ sequence: UInt64) -> String {
        kind == .snapshot ? "the snapshot" : "segment \(sequence)"
    }
}

/// The start of a snapshot's payload: its own length (u32, big-endian), then cells: format (1), whether
/// the store was encrypted, and the one-time key of the store copy that follows (docs/backup.md#snapshots).
struct SnapshotPrefix {
    let copyKey: CipherKey
    let sourceEncrypted: Bool
    /// Text the sealer keeps with the snapshot, authenticated with it (a sync's migration barrier).
    let note: String?
    let length: Int

    static let format: Int64 = 1

    static func encode(copyKey: CipherKey, sourceEncrypted: Bool, note: String? = nil) -> [UInt8] {
        var cells = ChangeBytesWriter()
        cells.appendCell(DatabaseValue.integer(format))
        cells.appendCell(DatabaseValue.integer(sourceEncrypted ? 1 : 0))
        copyKey.secret.withBytes { cells.appendCell(DatabaseValue.blob(Data($0))) }
        if let note { cells.appendCell(DatabaseValue.text(note)) }
        let n = UInt32(cells.bytes.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + cells.bytes
    }

    init(decoding piece: UnsafeRawBufferPointer, file: String) throws {
        let bytes = [UInt8](piece.prefix(4))
        guard bytes.count == 4 else { throw BackupError.damaged(file: file, reason: "its payload is cut short") }
        let n = bytes.reduce(0) { $0 << 8 | Int($1) }
        guard piece.count >= 4 + n else { throw BackupError.damaged(file: file, reason: "its payload is cut short") }
        var cursor = CellCursor([UInt8](piece[4..<(4 + n)]))
        do {
            guard try cursor.cell() == .integer(Self.format) else {
                throw BackupError.damaged(file: file, reason: "its snapshot format is not one this Vein reads")
            }
            let encrypted = try cursor.cell()
            guard case .blob(let key) = try cursor.cell(), key.count == AESGCM.keyLength else { throw CellCursor.Damaged() }
            if cursor.isAtEnd {
                note = nil
            } else {
                guard case .text(let text) = try cursor.cell(), cursor.isAtEnd else { throw CellCursor.Damaged() }
                note = text
            }
            copyKey = CipherKey.raw(key)
            sourceEncrypted = encrypted == .integer(1)
        } catch is CellCursor.Damaged {
            throw BackupError.damaged(file: file, reason: "its payload is malformed")
        }
        length = 4 + n
    }
}
