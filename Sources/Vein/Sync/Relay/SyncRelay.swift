import Foundation

/// A sync's relay (docs/sync.md#the-relay), opened: its backend, a folder or a PostgreSQL database, and
/// the id of the sync it carries, which every sealed file of it names.
package struct SyncRelay: Sendable {
    let backend: any RelayBackend
    /// A random id made with the sync: the `storeID` every sealed file of it names.
    package let syncID: String

    /// The sealed files' generation before any key rotation: the first key epoch (`SyncKeyChain`).
    static let firstEpoch: UInt32 = 1

    /// The relay as messages name it.
    package var location: String { backend.location }

    /// Where the relay is, as a replica records it (a URL's password included).
    package var recordedLocation: String { backend.recordedLocation }

    /// Waits up to `seconds` for news of a segment: true as soon as the relay tells of one.
    package func waitForNews(seconds: Double) throws -> Bool { try backend.waitForNews(seconds: seconds) }

    /// The relay at `location`: a folder's path, a `file://` URL, or a `postgres://` (`postgresql://`) URL.
    package static func open(_ location: String) throws -> SyncRelay {
        let backend = try backend(location)
        return SyncRelay(backend: backend, syncID: try backend.syncID())
    }

    /// Makes a new relay at `location` (a new or empty folder, a database without a relay) carrying a new
    /// sync `syncID` (a new ULID), with the snapshot `seal` writes (given the sync id, the snapshot's path
    /// and a scratch path).
    static func make(at location: String, syncID: String, snapshot seal: (_ syncID: String, _ path: String, _ scratch: String) throws -> Void) throws -> SyncRelay {
        let backend = try backend(location)
        try backend.create(syncID: syncID) { path, scratch in try seal(syncID, path, scratch) }
        return SyncRelay(backend: backend, syncID: syncID)
    }

    static func backend(_ location: String) throws -> any RelayBackend {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") { return try PostgresRelay(url: location) }
        if !location.contains("://") { return FolderRelay(path: location) }
        guard location.hasPrefix("file://"), let url = URL(string: location), url.isFileURL, !url.path.isEmpty else {
            throw SyncError.notARelay(location, reason: "a relay is a folder (a path or a file:// URL) or a postgres:// URL")
        }
        return FolderRelay(path: url.path)
    }
}

extension SyncRelay {
    /// A sealed file's header against its place in the relay: this sync, the replica whose folder holds
    /// it, the kind and number its name says.
    func check(_ header: SealedHeader, file: String, kind: SealedHeader.Kind, replica: String, sequence: UInt64) throws {
        guard header.storeID == syncID else {
            throw BackupError.damaged(file: file, reason: "it belongs to another sync (sync id \(header.storeID), not \(syncID))")
        }
        // The generation is the key epoch, which the key that opens the file answers for (`SyncKeyChain`).
        guard header.kind == kind, header.generation >= Self.firstEpoch, header.replicaID == replica, header.sequence == sequence else {
            func named(_ kind: SealedHeader.Kind, _ replica: String, _ sequence: UInt64) -> String {
                guard kind == .snapshot else { return "replica \(replica)'s segment \(sequence)" }
                return sequence == 0 ? "the snapshot" : "migration \(sequence)'s snapshot"
            }
            let said = named(header.kind, header.replicaID, header.sequence), expected = named(kind, replica, sequence)
            throw BackupError.damaged(file: file, reason: "it says it is \(said), not \(expected)")
        }
    }
}
