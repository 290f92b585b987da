import Foundation

/// A folder relay (docs/sync.md#the-relay): a marker naming the sync, the snapshot a new replica starts
/// from, and one folder per replica holding its numbered sealed segments. Each replica writes only its own
/// folder, so two replicas never write one file, and the relay may be any folder both can reach (NFS,
/// Syncthing, Dropbox, an SFTP mount).
///
///     RELAY/vein-sync                        "vein-sync 1", the sync's id
///     RELAY/snapshot.vseal                   the first replica's store when the sync began
///     RELAY/<replica id>/segment-00000001.vseal …
///     RELAY/<replica id>/forgotten           the replica was forgotten: pruning waits for it no more
///     RELAY/key-00000002.vseal               epoch 2's key file: epoch 1's key, sealed under epoch 2's
///     RELAY/migration-00000001.vseal         the store at the first migration's schema version (`SyncSnapshotNote`)
///     RELAY/checkpoint-00000001.vseal        a store with its stamps, which segments before it may be pruned for
///
/// Names carry only ids and numbers; every file but the marker is sealed under the sync key and says in
/// its header where it belongs.
final class FolderRelay: RelayBackend {
    let path: String

    static let markerName = "vein-sync"
    static let markerFirstLine = "vein-sync 1"
    static let snapshotFile = "snapshot.vseal"
    /// In a replica's folder: the replica was forgotten (`SyncSession.forget`).
    static let forgottenFile = "forgotten"

    init(path: String) { self.path = path }

    var location: String { path }
    var recordedLocation: String { (try? FileSystem.realPath(path)) ?? path }

    func syncID() throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileError.notFound(path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw SyncError.notARelay(path, reason: "it is not a folder") }
        let marker = path + "/" + Self.markerName
        guard FileSystem.fileExists(marker) else { throw SyncError.notARelay(path, reason: "it has no \(Self.markerName) file") }
        let lines = try FileInput.readText(marker).split(separator: "\n").map(String.init)
        guard lines.count == 2, lines[0] == Self.markerFirstLine, lines[1].hasPrefix("sync "), lines[1].count == 5 + SealedHeader.idLength else {
            throw SyncError.notARelay(path, reason: "its \(Self.markerName) file is not one Vein wrote")
        }
        return String(lines[1].dropFirst(5))
    }

    /// The marker first, which appears whole and never replaces another's (so two `init`s cannot both
    /// claim the folder), then the snapshot.
    func create<T>(syncID: String, snapshot seal: (String, String) throws -> T) throws -> T {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SyncError.notARelay(path, reason: "it is not a folder") }
            if FileSystem.fileExists(path + "/" + Self.markerName) {
                throw SyncError.relayInUse(path, sync: (try? self.syncID()) ?? "of another tool")
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            guard entries.allSatisfy({ $0.hasPrefix(".") }) else {
                throw SyncError.notARelay(path, reason: "it holds other files (a relay needs a new or empty folder)")
            }
        } else {
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw FileSystem.writeError(path, errno, creating: true) }
        }
        let staged = try StagedFile(target: path + "/" + Self.markerName, tag: StagedFile.Tag.writing.rawValue, mode: 0o644, placement: .create)
        defer { staged.discard() }
        try staged.write(Array("\(Self.markerFirstLine)\nsync \(syncID)\n".utf8))
        do { try staged.commit() } catch let error as FileError {
            if case .alreadyExists = error { throw SyncError.relayInUse(path, sync: (try? self.syncID()) ?? "of another process") }
            throw error
        }
        return try seal(path + "/" + Self.snapshotFile, path + "/.snapshot-\(ULID.make()).vein")
    }

    /// Folders named as ids.
    func replicas() throws -> [String] {
        let entries: [String]
        do { entries = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw FileError.unreadable(path, reason: String(describing: error))
        }
        return entries.filter { $0.count == SealedHeader.idLength && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }.sorted()
    }

    /// A replica's folder, made before its first segment.
    func register(replica: String) throws {
        let directory = replicaPath(replica)
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw FileSystem.writeError(directory, errno, creating: true) }
    }

    /// An empty `forgotten` file in the replica's folder.
    func forget(replica: String) throws {
        try register(replica: replica)
        let file = replicaPath(replica) + "/" + Self.forgottenFile
        let descriptor = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileSystem.writeError(file, errno, creating: true) }
        close(descriptor)
    }

    func forgottenReplicas() throws -> Set<String> {
        Set(try replicas().filter { FileSystem.fileExists(replicaPath($0) + "/" + Self.forgottenFile) })
    }

    func segmentRanges() throws -> [String: ClosedRange<UInt64>] {
        var ranges: [String: ClosedRange<UInt64>] = [:]
        for replica in try replicas() { ranges[replica] = try segmentRange(of: replica) }
        return ranges
    }

    func hasSegment(of replica: String, _ sequence: UInt64) throws -> Bool {
        FileSystem.fileExists(segmentName(of: replica, sequence))
    }

    func digest(of replica: String, _ sequence: UInt64) throws -> [UInt8]? {
        let file = segmentName(of: replica, sequence)
        return FileSystem.fileExists(file) ? try SealedFile.digest(of: file) : nil
    }

    func header(ofSegment replica: String, _ sequence: UInt64) throws -> SealedHeader? {
        let file = segmentName(of: replica, sequence)
        return FileSystem.fileExists(file) ? try SealedFile.header(of: file) : nil
    }

    func reading<T>(segment replica: String, _ sequence: UInt64, _ body: (String) throws -> T) throws -> T {
        try body(segmentName(of: replica, sequence))
    }

    func writing<T>(segment replica: String, _ sequence: UInt64, _ seal: (String) throws -> T) throws -> T {
        try seal(segmentName(of: replica, sequence))
    }

    func segmentName(of replica: String, _ sequence: UInt64) -> String {
        replicaPath(replica) + "/segment-" + BackupFolder.number(sequence) + ".vseal"
    }

    var snapshotName: String { path + "/" + Self.snapshotFile }

    func keyEpochs() throws -> [UInt32] { numbered("key-") }

    /// The numbers of the sealed files named `<prefix><number>.vseal` at the relay's top, in order.
    private func numbered(_ prefix: String) -> [UInt32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return entries.compactMap { name -> UInt32? in
            guard name.hasPrefix(prefix), name.hasSuffix(".vseal") else { return nil }
            return UInt32(name.dropFirst(prefix.count).dropLast(6))
        }.sorted()
    }

    func snapshots(_ kind: RelaySnapshot) throws -> [UInt32] { numbered(kind.rawValue + "-") }

    func reading<T>(_ kind: RelaySnapshot, _ number: UInt32, _ body: (String) throws -> T) throws -> T { try body(snapshotName(kind, number)) }

    /// The sealed file appears whole and never replaces another (`SealedFile` links it into place); what a
    /// killed writer left of its temporary is removed first (one still being written is locked, and stays).
    func writing<T>(_ kind: RelaySnapshot, _ number: UInt32, _ seal: (String) throws -> T) throws -> T {
        StagedFile.removeLeftovers(of: snapshotName(kind, number), tag: StagedFile.Tag.sealing.rawValue)
        do { return try seal(snapshotName(kind, number)) } catch FileError.alreadyExists {
            throw SyncError.snapshotTaken(path, kind: kind.rawValue, number: number)
        }
    }

    func snapshotName(_ kind: RelaySnapshot, _ number: UInt32) -> String {
        path + "/" + kind.rawValue + "-" + BackupFolder.number(UInt64(number)) + ".vseal"
    }

    func removeSnapshot(_ kind: RelaySnapshot, _ number: UInt32) throws {
        let file = snapshotName(kind, number)
        guard unlink(file) == 0 || errno == ENOENT else { throw FileSystem.writeError(file, errno, creating: false) }
    }

    func segmentRange(of replica: String) throws -> ClosedRange<UInt64>? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: replicaPath(replica))) ?? []
        let numbers = names.compactMap { name -> UInt64? in
            guard name.hasPrefix("segment-"), name.hasSuffix(".vseal") else { return nil }
            return UInt64(name.dropFirst(8).dropLast(6))
        }
        guard let oldest = numbers.min(), let newest = numbers.max() else { return nil }
        return oldest...newest
    }

    /// Oldest first, so a removal stopped halfway leaves the newer segments, and the chain's end.
    func removeSegments(of replica: String, through sequence: UInt64) throws {
        guard let oldest = try segmentRange(of: replica)?.lowerBound, oldest <= sequence else { return }
        for number in oldest...sequence {
            let file = segmentName(of: replica, number)
            guard unlink(file) == 0 || errno == ENOENT else { throw FileSystem.writeError(file, errno, creating: false) }
        }
    }

    func reading<T>(keyEpoch epoch: UInt32, _ body: (String) throws -> T) throws -> T { try body(keyEpochName(epoch)) }

    func writing<T>(keyEpoch epoch: UInt32, _ seal: (String) throws -> T) throws -> T {
        do { return try seal(keyEpochName(epoch)) } catch FileError.alreadyExists {
            throw SyncError.rotatedElsewhere(path, epoch: epoch)
        }
    }

    func keyEpochName(_ epoch: UInt32) -> String { path + "/key-" + BackupFolder.number(UInt64(epoch)) + ".vseal" }

    func reading<T>(snapshot body: (String) throws -> T) throws -> T { try body(snapshotName) }

    func snapshotHeader() throws -> SealedHeader { try SealedFile.header(of: snapshotName) }

    /// A `flock` on the replica's `.lock`; what a push killed while sealing left is removed under it
    /// (no other push is sealing then).
    func lock(replica: String) throws -> () -> Void {
        let directory = replicaPath(replica)
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw FileSystem.writeError(directory, errno, creating: true) }
        guard let lock = try FileSystem.tryLock(directory + "/.lock") else { throw SyncError.busy(path) }
        StagedFile.removeLeftovers(in: directory, tag: StagedFile.Tag.sealing.rawValue)
        return lock.unlock
    }

    var tellsOfNews: Bool { false }

    /// A folder tells no one of new files: the caller looks again after `seconds`.
    func waitForNews(seconds: Double) throws -> Bool {
        usleep(useconds_t(seconds * 1_000_000))
        return false
    }

    func replicaPath(_ replica: String) -> String { path + "/" + replica }
}
