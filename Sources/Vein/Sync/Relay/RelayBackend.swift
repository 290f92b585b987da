/// Where a sync's sealed files lie (docs/sync.md#the-relay): a folder (`FolderRelay`) or a PostgreSQL
/// database (`PostgresRelay`). A backend stores and hands back sealed bytes under a replica id and a
/// sequence number; it never decrypts, checks or orders them (`SyncSession` does), so both backends
/// are equally blind and a relay's owner learns only sizes, counts and ids.
///
/// Sealed files are read and written through local paths: a folder's are the files themselves; a
/// database's go through a private staging folder of ciphertext, so `SealedFile` is the one reader and
/// writer of the format.
protocol RelayBackend: AnyObject, Sendable {
    /// The relay as messages name it (a folder's path; a URL without its password).
    var location: String { get }
    /// What a replica records to find the relay again.
    var recordedLocation: String { get }

    /// The sync this relay carries; `SyncError.notARelay` when it carries none.
    func syncID() throws -> String
    /// Claims the relay for a new sync `syncID` with the snapshot `seal` writes to its first path (the
    /// second is a scratch path beside it): all of it, or nothing on the relay. `SyncError.relayInUse`
    /// when another sync has it, `notARelay` when it holds anything else.
    func create<T>(syncID: String, snapshot seal: (_ path: String, _ scratch: String) throws -> T) throws -> T

    /// The replicas that wrote segments or were registered, in id order.
    func replicas() throws -> [String]
    /// Makes `replica` known on the relay before it writes a segment (pruning waits for known replicas).
    func register(replica: String) throws
    /// Marks `replica` forgotten: pruning no longer waits for it, and it syncs no more.
    func forget(replica: String) throws
    /// The replicas marked forgotten.
    func forgottenReplicas() throws -> Set<String>
    /// The oldest and newest segment each replica that wrote one has on the relay (those before the
    /// oldest were pruned).
    func segmentRanges() throws -> [String: ClosedRange<UInt64>]
    func hasSegment(of replica: String, _ sequence: UInt64) throws -> Bool
    /// SHA-256 of the segment's bytes, nil when it is not on the relay.
    func digest(of replica: String, _ sequence: UInt64) throws -> [UInt8]?
    /// The segment's clear header, read without the rest (for `status`; believed only once the file is opened).
    func header(ofSegment replica: String, _ sequence: UInt64) throws -> SealedHeader?
    /// Runs `body` with a local path holding the segment's sealed bytes. A damaged file is named as
    /// `segmentName` says, never by its staging path.
    func reading<T>(segment replica: String, _ sequence: UInt64, _ body: (String) throws -> T) throws -> T
    /// Places the segment `seal` writes to the path it is given; it never replaces one on the relay.
    func writing<T>(segment replica: String, _ sequence: UInt64, _ seal: (String) throws -> T) throws -> T
    /// How messages name a segment (a folder's file path).
    func segmentName(of replica: String, _ sequence: UInt64) -> String

    /// How messages name the snapshot.
    var snapshotName: String { get }
    func reading<T>(snapshot body: (String) throws -> T) throws -> T
    /// The snapshot's clear header, read without the rest (which key sealed it, before anything is opened).
    func snapshotHeader() throws -> SealedHeader

    /// The key epochs the relay holds key files of (2 and up: epoch 1's key is the sync's first), in order.
    func keyEpochs() throws -> [UInt32]
    func reading<T>(keyEpoch epoch: UInt32, _ body: (String) throws -> T) throws -> T
    /// Places the key file `seal` writes; `SyncError.rotatedElsewhere` when the epoch has one already.
    func writing<T>(keyEpoch epoch: UInt32, _ seal: (String) throws -> T) throws -> T
    /// How messages name a key file.
    func keyEpochName(_ epoch: UInt32) -> String

    /// The numbered snapshots of `kind` the relay holds (1 and up), in order; only whole ones.
    func snapshots(_ kind: RelaySnapshot) throws -> [UInt32]
    func reading<T>(_ kind: RelaySnapshot, _ number: UInt32, _ body: (String) throws -> T) throws -> T
    /// Places the snapshot `seal` writes to the path it is given, all of it or nothing;
    /// `SyncError.snapshotTaken` when the relay has one of that kind and number already.
    func writing<T>(_ kind: RelaySnapshot, _ number: UInt32, _ seal: (String) throws -> T) throws -> T
    /// How messages name a numbered snapshot.
    func snapshotName(_ kind: RelaySnapshot, _ number: UInt32) -> String
    /// Removes a numbered snapshot (an older checkpoint: `SyncSession.prune`); none there is no error.
    func removeSnapshot(_ kind: RelaySnapshot, _ number: UInt32) throws

    /// The numbers of the oldest and newest segments of `replica` the relay holds (nil: none): segments
    /// before the oldest were pruned.
    func segmentRange(of replica: String) throws -> ClosedRange<UInt64>?
    /// Removes `replica`'s segments numbered `through` and below (`SyncSession.prune`).
    func removeSegments(of replica: String, through sequence: UInt64) throws

    /// Holds `replica`'s writer lock until the returned closure runs: two processes never push one
    /// replica's chain at once. `SyncError.busy` when another holds it.
    func lock(replica: String) throws -> () -> Void
    /// Whether `waitForNews` hears of segments (a folder cannot tell; it only waits).
    var tellsOfNews: Bool { get }
    /// Waits up to `seconds`, returning true as soon as the relay tells of a new segment; false when it
    /// cannot tell (a folder) or nothing came.
    func waitForNews(seconds: Double) throws -> Bool
}

/// The snapshots a relay holds besides the first one, each kind numbered from 1 (docs/sync.md#the-relay).
enum RelaySnapshot: String, CaseIterable, Sendable {
    /// A migration's barrier: the store at a new schema version, which every replica starts from.
    case migration
    /// A store whose stamps and set-aside rows it holds too, which a new replica may start from, so the
    /// segments it covers can be pruned.
    case checkpoint
}
