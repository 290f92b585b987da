import Foundation

/// A folder relay (docs/sync.md#the-relay): a marker naming the sync, the snapshot a new replica starts
/// from, and one folder per replica holding its numbered sealed segments. Each replica writes only its own
/// folder, so two replicas never write one file, and the relay may be any folder both can reach (NFS,
/// Syncthing, Dropbox, an SFTP mount).
///
///     RELAY/vein-sync                        "vein-sync 1", the sync's id
///     RELAY/snapshot.vseal                   the first replica's store when the sync began
///     RELAY/<replica id>/segment-00000001.vseal …
///
/// Names carry only ids and numbers; every file but the marker is sealed under the sync key and says in
/// its header where it belongs.
package struct SyncRelay: Sendable {
    package let path: String
    /// A random id made with the sync: the `storeID` every sealed file of it names.
    package let syncID: String

    static let markerName = "vein-sync"
    static let markerFirstLine = "vein-sync 1"
    static let snapshotName = "snapshot.vseal"
    /// The sealed files' generation: one sync key era (key rotation is not built yet, docs/sync.md).
    static let epoch: UInt32 = 1

    /// The relay at `path`.
    package static func open(_ path: String) throws -> SyncRelay {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileError.notFound(path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw SyncError.notARelay(path, reason: "it is not a folder") }
        let marker = path + "/" + markerName
        guard FileSystem.fileExists(marker) else { throw SyncError.notARelay(path, reason: "it has no \(markerName) file") }
        let lines = try FileInput.readText(marker).split(separator: "\n").map(String.init)
        guard lines.count == 2, lines[0] == markerFirstLine, lines[1].hasPrefix("sync "), lines[1].count == 5 + SealedHeader.idLength else {
            throw SyncError.notARelay(path, reason: "its \(markerName) file is not one Vein wrote")
        }
        return SyncRelay(path: path, syncID: String(lines[1].dropFirst(5)))
    }

    /// Makes a new relay at `path` (a new folder, or an empty one): the folder and its marker, which
    /// appears whole and never replaces another's.
    static func make(at path: String) throws -> SyncRelay {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SyncError.notARelay(path, reason: "it is not a folder") }
            if FileSystem.fileExists(path + "/" + markerName) {
                throw SyncError.relayInUse(path, sync: (try? open(path).syncID) ?? "of another tool")
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            guard entries.allSatisfy({ $0.hasPrefix(".") }) else {
                throw SyncError.notARelay(path, reason: "it holds other files (a relay needs a new or empty folder)")
            }
        } else {
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw FileSystem.writeError(path, errno, creating: true) }
        }
        let relay = SyncRelay(path: path, syncID: ULID.make().description)
        let staged = try StagedFile(target: path + "/" + markerName, tag: StagedFile.Tag.writing.rawValue, mode: 0o644, placement: .create)
        defer { staged.discard() }
        try staged.write(Array("\(markerFirstLine)\nsync \(relay.syncID)\n".utf8))
        do { try staged.commit() } catch let error as FileError {
            if case .alreadyExists = error { throw SyncError.relayInUse(path, sync: (try? open(path).syncID) ?? "of another process") }
            throw error
        }
        return relay
    }

    var snapshotPath: String { path + "/" + Self.snapshotName }
    func replicaPath(_ replica: String) -> String { path + "/" + replica }
    func segmentPath(_ replica: String, _ sequence: UInt64) -> String {
        replicaPath(replica) + "/segment-" + BackupFolder.number(sequence) + ".vseal"
    }

    /// The replicas that wrote to the relay: folders named as ids, in id order.
    func replicas() throws -> [String] {
        let entries: [String]
        do { entries = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw FileError.unreadable(path, reason: String(describing: error))
        }
        return entries.filter { $0.count == SealedHeader.idLength && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }.sorted()
    }

    /// Makes `replica`'s folder, and holds its writer lock (a `flock` on its `.lock`) until `unlock`: two
    /// processes never push one replica's chain at once.
    func lockReplica(_ replica: String) throws -> FileSystem.DirectoryLock {
        let directory = replicaPath(replica)
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw FileSystem.writeError(directory, errno, creating: true) }
        guard let lock = try FileSystem.tryLock(directory + "/.lock") else { throw SyncError.busy(path) }
        return lock
    }
}

extension SyncRelay {
    /// How many of `replica`'s segments are in the relay (0 when it has no folder).
    func segmentCount(of replica: String) throws -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: replicaPath(replica))) ?? []
        return names.filter { $0.hasPrefix("segment-") && $0.hasSuffix(".vseal") }.count
    }
}
