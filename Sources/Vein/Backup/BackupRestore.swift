import Foundation

/// `vein restore` and `vein backup verify` (docs/backup.md#restoring): a generation's snapshot unsealed
/// into a scratch store, its segments replayed onto it in order up to a moment, the result verified, and
/// then, for a restore, copied into a new store that is complete or absent (`StoreCopier`). The scratch
/// store lives beside the destination, encrypted with the snapshot's one-time key, and is removed on
/// every path out.
/// The key of a backup's files: given the key id a file's header names and the file, for messages.
package typealias BackupKeys = (_ id: [UInt8], _ file: String) throws -> BackupKey

package enum BackupRestore {
    package struct Result: Sendable {
        package let generation: UInt32
        /// The last segment applied; 0 when only the snapshot was.
        package let lastSegment: UInt64
        package let segmentsRead: Int
        package let transactionsApplied: Int
        /// The last commit the result holds (the snapshot's when no segment was applied).
        package let lastToken: Int64
        package let lastClock: Int64
        package let copy: StoreCopier.Result?
    }

    /// Restores the backup in `folder` to `destination`, as it was at `point` (its newest state when nil).
    /// `keys` gives the key of files sealed with a key id; `protection` the new store's, told whether the
    /// backed-up store was encrypted: asked as soon as the snapshot says so, so a protection that cannot be
    /// had (no keyring for a new key) fails before the segments are read.
    package static func restore(_ folder: BackupFolder, keys: BackupKeys, to destination: String,
                                protection: (Bool) throws -> StoreCreator.Protection, at point: HistoryPoint?) throws -> Result {
        guard !FileSystem.fileExists(destination) else { throw StoreError.alreadyExists(destination) }
        // What a killed restore to the same name left.
        StagedFile.removeLeftovers(of: destination, tag: StagedFile.Tag.restoring.rawValue)
        let generation = try chooseGeneration(in: folder, at: point)
        var chosen: StoreCreator.Protection?
        return try replay(folder, generation: generation, keys: keys, scratchBeside: destination, at: point,
                          prepare: { chosen = try protection($0) }) { scratch in
            try StoreCopier.copy(scratch, to: destination, protection: chosen!, keepsChangeLog: true, readingSource: nil)
        }
    }

    /// What `verify` found of one generation: its replay, or why it was not checked (an older generation
    /// sealed with a key that was not given: a key rotation's).
    package struct GenerationCheck: Sendable {
        package let generation: UInt32
        package let result: Result?
        package let notChecked: String?
    }

    /// Checks every generation of `folder`: each file unseals, chains and applies on a scratch copy. The
    /// newest must; an older one whose key is not at hand is reported as not checked.
    package static func verify(_ folder: BackupFolder, keys: BackupKeys) throws -> [GenerationCheck] {
        let generations = try folder.completeGenerations()
        guard let newest = generations.last else { throw BackupError.empty(folder.path) }
        let scratch = FileManager.default.temporaryDirectory.path + "/vein-verify"
        var previousLast: [UInt8]?
        // Generations without a snapshot (a removal interrupted, or a file deleted) are named, not checked.
        let lost = try folder.generations().filter { $0 < newest && !generations.contains($0) }.map { generation in
            GenerationCheck(generation: generation, result: nil,
                            notChecked: "\(folder.snapshotPath(generation)) is missing (a removal was interrupted, or it was deleted)")
        }
        let checks = try generations.map { generation in
            defer { previousLast = try? folder.lastFileDigest(of: generation) }
            // Generations chain too: a snapshot names the last file of the generation before it.
            if let previousLast, generation > 1, generations.contains(generation - 1),
               try SealedFile.header(of: folder.snapshotPath(generation)).previousDigest != previousLast {
                throw BackupError.damaged(file: folder.snapshotPath(generation),
                                          reason: "it does not follow generation \(generation - 1) (the chain's digest differs)")
            }
            do {
                let result = try replay(folder, generation: generation, keys: keys, scratchBeside: scratch, at: nil, prepare: { _ in }) { _ in nil }
                return GenerationCheck(generation: generation, result: result, notChecked: nil)
            } catch let error as BackupError where generation != newest {
                switch error {
                case .wrongKey, .noKey: return GenerationCheck(generation: generation, result: nil, notChecked: error.message)
                default: throw error
                }
            }
        }
        return (lost + checks).sorted { $0.generation < $1.generation }
    }

    /// The newest generation whose snapshot is at or before `point` (the newest of all when nil).
    static func chooseGeneration(in folder: BackupFolder, at point: HistoryPoint?) throws -> UInt32 {
        let generations = try folder.completeGenerations()
        guard let newest = generations.last else { throw BackupError.empty(folder.path) }
        guard let point else { return newest }
        var oldest: SealedHeader?
        for generation in generations.reversed() {
            let path = folder.snapshotPath(generation)
            guard FileSystem.fileExists(path) else { continue }
            let header = try SealedFile.header(of: path)
            if point.includes(token: header.lastToken, clock: header.lastClock) { return generation }
            oldest = header
        }
        let described = oldest.map { header in
            "token \(header.lastToken)" + (header.lastClock > 0 ? " at \(ISODate.format(HybridClock.date(of: header.lastClock).timeIntervalSince1970))" : "")
        } ?? "nothing"
        throw BackupError.nothingBefore(folder.path, oldest: described)
    }

    /// `prepare` hears whether the backed-up store was encrypted once the snapshot is unsealed; `finish`
    /// makes what the restore yields from the verified scratch store.
    private static func replay(_ folder: BackupFolder, generation: UInt32, keys: BackupKeys, scratchBeside target: String,
                               at point: HistoryPoint?, prepare: (Bool) throws -> Void,
                               finish: (Store) throws -> StoreCopier.Result?) throws -> Result {
        try withoutActuallyEscaping(keys) { keys in
            try replay(GenerationReader(folder: folder, generation: generation) { id in try keys(id, folder.snapshotPath(generation)) },
                       scratchBeside: target, at: point, prepare: prepare, finish: finish)
        }
    }

    private static func replay(_ reader: GenerationReader, scratchBeside target: String, at point: HistoryPoint?,
                               prepare: (Bool) throws -> Void, finish: (Store) throws -> StoreCopier.Result?) throws -> Result {
        let folder = reader.folder, generation = reader.generation
        let staged = try StagedFile(target: target, tag: StagedFile.Tag.restoring.rawValue, mode: 0o600, keepsMode: false, placement: .create)
        defer { staged.discard() }
        let snapshot = try reader.unsealSnapshot(into: staged.descriptor, path: staged.temporary)
        try prepare(snapshot.sourceEncrypted)
        let scratch = try Store.open(staged.temporary, realPath: staged.temporary, key: snapshot.copyKey,
                                     encryption: .encrypted(kind: snapshot.copyKey.kindDescription, source: .none), mode: .readWrite)
        defer { try? scratch.close() }
        var applied = 0, read = 0
        var last = (token: snapshot.header.lastToken, clock: snapshot.header.lastClock, segment: UInt64(0))
        let replayer = ChangeReplayer(database: scratch.database)
        try reader.readSegments(after: snapshot) { header, transactions in
            read += 1
            let included = transactions.filter { point?.includes(token: $0.token, clock: $0.clock) ?? true }
            // A segment is applied whole or not at all: a restore never holds half a commit, nor half a segment.
            try scratch.transaction(.immediate) {
                for transaction in included {
                    guard transaction.kind == .changes else {
                        throw BackupError.damaged(file: folder.segmentPath(generation, header.sequence),
                                                  reason: "it carries a record of kind \(transaction.kind.rawValue), which only a new generation may follow")
                    }
                    do { try replayer.apply(transaction) } catch ChangeLogError.damaged(let what) {
                        throw BackupError.damaged(file: folder.segmentPath(generation, header.sequence),
                                                  reason: "its commit \(transaction.token) does not apply to what came before it (\(what))")
                    }
                }
            }
            applied += included.count
            if let newest = included.last { last = (newest.token, newest.clock, header.sequence) }
            // Past the point: later segments hold later commits only (and a damaged one after the point is
            // never read when the point is a token).
            if case .token(let token)? = point, token <= header.lastToken { return false }
            return included.count == transactions.count
        }
        let report = try StoreVerifier.verify(scratch)
        guard report.isClean else {
            let problems = report.checks.flatMap(\.problems).prefix(3).joined(separator: "; ")
            throw BackupError.damaged(file: folder.generationPath(generation), reason: "the store it restores fails verification: \(problems)")
        }
        let copy = try finish(scratch)
        return Result(generation: generation, lastSegment: last.segment, segmentsRead: read, transactionsApplied: applied,
                      lastToken: last.token, lastClock: last.clock, copy: copy)
    }
}
