import Foundation

/// `vein restore` and `vein backup verify` (docs/backup.md#restoring): a generation's snapshot unsealed
/// into a scratch store, its segments replayed onto it in order up to a moment, the result verified, and
/// then, for a restore, copied into a new store that is complete or absent (`StoreCopier`). The scratch
/// store lives beside the destination, encrypted with the snapshot's one-time key, and is removed on
/// every path out.
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
    /// backed-up store was encrypted.
    package static func restore(_ folder: BackupFolder, keys: ([UInt8]) throws -> BackupKey, to destination: String,
                                protection: (Bool) -> StoreCreator.Protection, at point: HistoryPoint?) throws -> Result {
        guard !FileSystem.fileExists(destination) else { throw StoreError.alreadyExists(destination) }
        let generation = try chooseGeneration(in: folder, at: point)
        return try replay(folder, generation: generation, keys: keys, scratchBeside: destination, at: point) { scratch, sourceEncrypted in
            try StoreCopier.copy(scratch, to: destination, protection: protection(sourceEncrypted), keepsChangeLog: true, readingSource: nil)
        }
    }

    /// Checks every generation of `folder`: each file unseals, chains and applies on a scratch copy.
    package static func verify(_ folder: BackupFolder, keys: ([UInt8]) throws -> BackupKey) throws -> [Result] {
        let generations = try folder.generations()
        guard !generations.isEmpty else { throw BackupError.empty(folder.path) }
        let scratch = FileManager.default.temporaryDirectory.path + "/vein-verify"
        return try generations.map { generation in
            try replay(folder, generation: generation, keys: keys, scratchBeside: scratch, at: nil) { _, _ in nil }
        }
    }

    /// The newest generation whose snapshot is at or before `point` (the newest of all when nil).
    static func chooseGeneration(in folder: BackupFolder, at point: HistoryPoint?) throws -> UInt32 {
        let generations = try folder.generations()
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
        throw BackupError.nothingBefore(point.description, oldest: described)
    }

    private static func replay(_ folder: BackupFolder, generation: UInt32, keys: ([UInt8]) throws -> BackupKey, scratchBeside target: String,
                               at point: HistoryPoint?, finish: (Store, Bool) throws -> StoreCopier.Result?) throws -> Result {
        let snapshotPath = folder.snapshotPath(generation)
        guard FileSystem.fileExists(snapshotPath) else { throw BackupError.damaged(file: snapshotPath, reason: "it is missing") }
        let reader = GenerationReader(folder: folder, generation: generation, key: try keys(try SealedFile.header(of: snapshotPath).keyID))
        let staged = try StagedFile(target: target, tag: StagedFile.Tag.restoring.rawValue, mode: 0o600, keepsMode: false, placement: .create)
        defer { staged.discard() }
        let snapshot = try reader.unsealSnapshot(into: staged.descriptor, path: staged.temporary)
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
                                                  reason: "it carries a \(transaction.kind.rawValue) record, which starts a new generation")
                    }
                    try replayer.apply(transaction)
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
        let copy = try finish(scratch, snapshot.sourceEncrypted)
        return Result(generation: generation, lastSegment: last.segment, segmentsRead: read, transactionsApplied: applied,
                      lastToken: last.token, lastClock: last.clock, copy: copy)
    }
}
