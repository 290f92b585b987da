import Foundation

/// A PostgreSQL relay (docs/sync.md#a-postgresql-relay): the tables of one database, which one role
/// owns, holding what a folder relay holds as files.
///
///     vein_relay     (one row: format 1, the sync's id)
///     vein_snapshot  (part, data)                 the snapshot's sealed bytes, in parts
///     vein_segments  (replica, sequence, data)    each replica's numbered sealed segments
///     vein_keys      (epoch, data)                each key epoch's key file (made at the first rotation)
///     vein_migrations (migration, part, data)     each migration's barrier, in parts (made at the first)
///     vein_checkpoints (checkpoint, part, data)   each checkpoint, in parts (made at the first)
///     vein_replicas  (replica)                    the replicas registered, before their first segment
///     vein_forgotten (replica)                    the replicas forgotten (`vein sync forget`)
///
/// A segment is one row, inserted once (the primary key refuses a second), so two writers never
/// overwrite each other; a replica's writer lock is a session advisory lock, which the server releases
/// when a killed process's connection drops. A push notifies the channel `vein_sync`, so a watching
/// replica hears of it at once. Every column but the ids and numbers is ciphertext.
final class PostgresRelay: RelayBackend, @unchecked Sendable {
    let url: String
    let location: String
    private let connection: PostgresConnection
    /// Serializes the connection: a relay may be shared by a sync's timer and its saves.
    private let lock = NSLock()
    /// Where sealed bytes are staged on their way in and out (ciphertext only), removed with the relay.
    private let staging: String
    private var listening = false

    static let format: Int64 = 1
    static let channel = "vein_sync"
    /// The snapshot's bytes per row: a snapshot of any size goes through in constant memory.
    static let partLength = 4 << 20

    static let createTables = [
        """
        CREATE TABLE IF NOT EXISTS vein_relay (one boolean PRIMARY KEY DEFAULT true CHECK (one), format bigint NOT NULL, \
        sync_id text NOT NULL)
        """,
        "CREATE TABLE IF NOT EXISTS vein_snapshot (part integer PRIMARY KEY, data bytea NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS vein_segments (replica text NOT NULL, sequence bigint NOT NULL, data bytea NOT NULL, \
        PRIMARY KEY (replica, sequence))
        """,
    ]

    init(url: String) throws {
        self.url = url
        let location = Self.withoutPassword(url)
        self.location = location
        do { connection = try PostgresConnection(url) } catch {
            throw SyncError.relayUnavailable(location, reason: error.message)
        }
        var template = Array((NSTemporaryDirectory() + "/vein-relay-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw FileSystem.writeError(NSTemporaryDirectory(), errno, creating: true) }
        staging = String(cString: made)
    }

    deinit {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: staging) {
            for name in names { unlink(staging + "/" + name) }
        }
        rmdir(staging)
    }

    var recordedLocation: String { url }

    func syncID() throws -> String {
        let rows: PostgresConnection.Rows
        do { rows = try run(#"SELECT format, sync_id FROM vein_relay"#) } catch let failure as PostgresConnection.Failure where failure.sqlState == "42P01" {
            throw SyncError.notARelay(location, reason: "its database holds no Vein sync relay (no vein_relay table)")
        }
        guard rows.count == 1, let format = rows.int64(0, 0), let id = rows.text(0, 1) else {
            throw SyncError.notARelay(location, reason: "its vein_relay table names no sync")
        }
        guard format == Self.format, id.count == SealedHeader.idLength else {
            throw SyncError.notARelay(location, reason: "its vein_relay table is not one this Vein wrote (format \(format))")
        }
        return id
    }

    /// One transaction: the tables, the claim and the snapshot appear together or not at all.
    func create<T>(syncID: String, snapshot seal: (String, String) throws -> T) throws -> T {
        let snapshot = staging + "/snapshot.vseal", scratch = staging + "/snapshot-scratch.vein"
        defer { unlink(snapshot) }
        try run("BEGIN")
        do {
            for sql in Self.createTables { try run(sql) }
            try run("LOCK TABLE vein_relay IN EXCLUSIVE MODE")
            if let other = try run("SELECT sync_id FROM vein_relay").text(0, 0) {
                throw SyncError.relayInUse(location, sync: other)
            }
            let held = try run("SELECT (SELECT count(*) FROM vein_snapshot) + (SELECT count(*) FROM vein_segments)").int64(0, 0) ?? 0
            guard held == 0 else { throw SyncError.notARelay(location, reason: "its vein_snapshot and vein_segments tables hold rows of no sync") }
            let result = try seal(snapshot, scratch)
            try insertParts(of: snapshot) { part, bytes in
                try run("INSERT INTO vein_snapshot (part, data) VALUES ($1, $2)", [Self.int4(part), bytes])
            }
            try run("INSERT INTO vein_relay (format, sync_id) VALUES ($1, $2)", [Self.int8(Self.format), Array(syncID.utf8)])
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    static let createReplicasTable = "CREATE TABLE IF NOT EXISTS vein_replicas (replica text PRIMARY KEY)"

    func replicas() throws -> [String] {
        let rows: PostgresConnection.Rows
        do {
            rows = try run("SELECT replica FROM vein_segments UNION SELECT replica FROM vein_replicas ORDER BY replica")
        } catch let failure as PostgresConnection.Failure where failure.sqlState == "42P01" {
            rows = try run("SELECT DISTINCT replica FROM vein_segments ORDER BY replica")  // no replica registered yet
        }
        return (0..<rows.count).compactMap { rows.text($0, 0) }
    }

    static let createForgottenTable = "CREATE TABLE IF NOT EXISTS vein_forgotten (replica text PRIMARY KEY)"

    func forget(replica: String) throws {
        try run(Self.createForgottenTable)
        try run("INSERT INTO vein_forgotten (replica) VALUES ($1) ON CONFLICT DO NOTHING", [Array(replica.utf8)])
    }

    func forgottenReplicas() throws -> Set<String> {
        do {
            let rows = try run("SELECT replica FROM vein_forgotten")
            return Set((0..<rows.count).compactMap { rows.text($0, 0) })
        } catch let failure as PostgresConnection.Failure where failure.sqlState == "42P01" {
            return []  // none forgotten yet
        }
    }

    func register(replica: String) throws {
        try run(Self.createReplicasTable)
        try run("INSERT INTO vein_replicas (replica) VALUES ($1) ON CONFLICT DO NOTHING", [Array(replica.utf8)])
    }

    func segmentRanges() throws -> [String: ClosedRange<UInt64>] {
        let rows = try run("SELECT replica, min(sequence), max(sequence) FROM vein_segments GROUP BY replica")
        var ranges: [String: ClosedRange<UInt64>] = [:]
        for row in 0..<rows.count {
            if let replica = rows.text(row, 0), let oldest = rows.int64(row, 1), let newest = rows.int64(row, 2), oldest <= newest {
                ranges[replica] = UInt64(oldest)...UInt64(newest)
            }
        }
        return ranges
    }

    func hasSegment(of replica: String, _ sequence: UInt64) throws -> Bool {
        try run("SELECT 1 FROM vein_segments WHERE replica = $1 AND sequence = $2", [Array(replica.utf8), Self.int8(Int64(sequence))]).count == 1
    }

    func digest(of replica: String, _ sequence: UInt64) throws -> [UInt8]? {
        let rows = try run("SELECT sha256(data) FROM vein_segments WHERE replica = $1 AND sequence = $2",
                                  [Array(replica.utf8), Self.int8(Int64(sequence))])
        return rows.count == 1 ? rows.bytes(0, 0) : nil
    }

    func header(ofSegment replica: String, _ sequence: UInt64) throws -> SealedHeader? {
        let rows = try run("SELECT substring(data FROM 1 FOR $3) FROM vein_segments WHERE replica = $1 AND sequence = $2",
                           [Array(replica.utf8), Self.int8(Int64(sequence)), Self.int4(Int32(SealedHeader.length))])
        guard rows.count == 1, let bytes = rows.bytes(0, 0) else { return nil }
        return try staged(bytes, at: staging + "/header-\(replica)-\(sequence).vseal", name: segmentName(of: replica, sequence)) {
            try SealedFile.header(of: $0)
        }
    }

    func reading<T>(segment replica: String, _ sequence: UInt64, _ body: (String) throws -> T) throws -> T {
        let rows = try run("SELECT data FROM vein_segments WHERE replica = $1 AND sequence = $2",
                                  [Array(replica.utf8), Self.int8(Int64(sequence))])
        let name = segmentName(of: replica, sequence)
        guard rows.count == 1, let bytes = rows.bytes(0, 0) else { throw FileError.notFound(name) }
        return try staged(bytes, at: staging + "/segment-\(replica)-\(sequence).vseal", name: name, body)
    }

    func writing<T>(segment replica: String, _ sequence: UInt64, _ seal: (String) throws -> T) throws -> T {
        try sealing(at: staging + "/segment-\(replica)-\(sequence).vseal", seal) { bytes in
            guard try insertOnce("INSERT INTO vein_segments (replica, sequence, data) VALUES ($1, $2, $3)",
                                 [Array(replica.utf8), Self.int8(Int64(sequence)), bytes]) else {
                throw SyncError.busy(location)
            }
        }
    }

    func segmentName(of replica: String, _ sequence: UInt64) -> String {
        "\(location): replica \(replica)'s segment \(sequence)"
    }

    var snapshotName: String { "\(location): the snapshot" }

    static let createKeysTable = "CREATE TABLE IF NOT EXISTS vein_keys (epoch bigint PRIMARY KEY, data bytea NOT NULL)"

    func keyEpochs() throws -> [UInt32] { try numbers("SELECT epoch FROM vein_keys ORDER BY epoch") }

    /// The numbers `sql` selects, in order; none from a table not made yet (a relay never rotated, or never
    /// migrated, or made before the table was).
    private func numbers(_ sql: String) throws -> [UInt32] {
        do {
            let rows = try run(sql)
            return (0..<rows.count).compactMap { rows.int64($0, 0).map { UInt32($0) } }
        } catch let failure as PostgresConnection.Failure where failure.sqlState == "42P01" {
            return []
        }
    }

    func reading<T>(keyEpoch epoch: UInt32, _ body: (String) throws -> T) throws -> T {
        let rows = try run("SELECT data FROM vein_keys WHERE epoch = $1", [Self.int8(Int64(epoch))])
        let name = keyEpochName(epoch)
        guard rows.count == 1, let bytes = rows.bytes(0, 0) else { throw FileError.notFound(name) }
        return try staged(bytes, at: staging + "/key-\(epoch).vseal", name: name, body)
    }

    func writing<T>(keyEpoch epoch: UInt32, _ seal: (String) throws -> T) throws -> T {
        try sealing(at: staging + "/key-\(epoch).vseal", seal) { bytes in
            try run(Self.createKeysTable)
            guard try insertOnce("INSERT INTO vein_keys (epoch, data) VALUES ($1, $2)", [Self.int8(Int64(epoch)), bytes]) else {
                throw SyncError.rotatedElsewhere(location, epoch: epoch)
            }
        }
    }

    func keyEpochName(_ epoch: UInt32) -> String { "\(location): key epoch \(epoch)" }

    func reading<T>(snapshot body: (String) throws -> T) throws -> T {
        try readingParts(of: "vein_snapshot", "", [], name: snapshotName, staged: staging + "/snapshot.vseal", body)
    }

    /// Stages a sealed file kept in parts (rows of `table` matching `condition`, numbered from 0) and runs
    /// `body` with its path: a file of any size goes through in constant memory. The parts are read in
    /// one read-only transaction that sees one state of the relay: a prune removing the file meanwhile
    /// (another replica's, once it published a newer checkpoint) leaves this read whole, not a file with
    /// parts missing; removed before it began, the file is not found.
    private func readingParts<T>(of table: String, _ condition: String, _ parameters: [[UInt8]], name: String, staged path: String,
                                 _ body: (String) throws -> T) throws -> T {
        unlink(path)
        defer { unlink(path) }
        let descriptor = try Self.createStaged(path)
        defer { close(descriptor) }
        #if VEIN_TEST_HOOKS
        Self.partsReadHook.current?(location, table, nil)
        #endif
        try run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let parts = try run("SELECT count(*) FROM \(table)" + (condition.isEmpty ? "" : " WHERE \(condition)"), parameters).int64(0, 0) ?? 0
            guard parts > 0 else { throw FileError.notFound(name) }
            let partNumber = "$\(parameters.count + 1)"
            for part in 0..<Int32(parts) {
                let rows = try run("SELECT data FROM \(table) WHERE " + (condition.isEmpty ? "" : "\(condition) AND ") + "part = \(partNumber)",
                                   parameters + [Self.int4(part)])
                guard rows.count == 1, let bytes = rows.bytes(0, 0) else {
                    throw SyncError.damaged(file: name, reason: "its part \(part) of \(parts) is missing")
                }
                try FileSystem.writeAll(descriptor, bytes, path: path)
                #if VEIN_TEST_HOOKS
                Self.partsReadHook.current?(location, table, part)
                #endif
            }
            try run("COMMIT")
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
        return try Self.naming(path, as: name) { try body(path) }
    }

    #if VEIN_TEST_HOOKS
    /// Test hook: called as a file kept in parts is read, with the relay's location and the table, first
    /// with nil before the read begins, then with each part's number once it is read. Debug builds only.
    package static let partsReadHook = LockedClosure<@Sendable (_ location: String, _ table: String, _ part: Int32?) -> Void>()
    #endif

    /// Inserts the file at `path` as numbered parts: `insert` is given each part's number and bytes.
    private func insertParts(of path: String, _ insert: (Int32, [UInt8]) throws -> Void) throws {
        let reader = try FileReader(path: path)
        var part: Int32 = 0
        while let bytes = try reader.next(Self.partLength) {
            try insert(part, bytes)
            part += 1
        }
    }

    /// A kind of numbered snapshot's table: `vein_migrations (migration, part, data)`, `vein_checkpoints (checkpoint, part, data)`.
    static func table(_ kind: RelaySnapshot) -> String { "vein_\(kind.rawValue)s" }

    static func createTable(_ kind: RelaySnapshot) -> String {
        "CREATE TABLE IF NOT EXISTS \(table(kind)) (\(kind.rawValue) bigint NOT NULL, part integer NOT NULL, data bytea NOT NULL, "
            + "PRIMARY KEY (\(kind.rawValue), part))"
    }

    func snapshots(_ kind: RelaySnapshot) throws -> [UInt32] {
        try numbers("SELECT DISTINCT \(kind.rawValue) FROM \(Self.table(kind)) ORDER BY \(kind.rawValue)")
    }

    func reading<T>(_ kind: RelaySnapshot, _ number: UInt32, _ body: (String) throws -> T) throws -> T {
        try readingParts(of: Self.table(kind), "\(kind.rawValue) = $1", [Self.int8(Int64(number))], name: snapshotName(kind, number),
                         staged: staging + "/\(kind.rawValue)-\(number).vseal", body)
    }

    /// One transaction: every part appears, or none; the first part's key refuses a second snapshot of the number.
    func writing<T>(_ kind: RelaySnapshot, _ number: UInt32, _ seal: (String) throws -> T) throws -> T {
        let path = staging + "/\(kind.rawValue)-\(number).vseal"
        unlink(path)
        defer { unlink(path) }
        let result = try seal(path)
        try run(Self.createTable(kind))
        try run("BEGIN")
        do {
            var taken = false
            try insertParts(of: path) { part, bytes in
                let sql = "INSERT INTO \(Self.table(kind)) (\(kind.rawValue), part, data) VALUES ($1, $2, $3)"
                let parameters = [Self.int8(Int64(number)), Self.int4(part), bytes]
                if part == 0 { taken = try !insertOnce(sql, parameters) } else if !taken { try run(sql, parameters) }
            }
            if taken { throw SyncError.snapshotTaken(location, kind: kind.rawValue, number: number) }
            try run("COMMIT")
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
        try run("SELECT pg_notify($1, '')", [Array(Self.channel.utf8)])
        return result
    }

    func snapshotName(_ kind: RelaySnapshot, _ number: UInt32) -> String { "\(location): \(kind.rawValue) \(number)" }

    func removeSnapshot(_ kind: RelaySnapshot, _ number: UInt32) throws {
        try run("DELETE FROM \(Self.table(kind)) WHERE \(kind.rawValue) = $1", [Self.int8(Int64(number))])
    }

    func segmentRange(of replica: String) throws -> ClosedRange<UInt64>? {
        let rows = try run("SELECT min(sequence), max(sequence) FROM vein_segments WHERE replica = $1", [Array(replica.utf8)])
        guard let oldest = rows.int64(0, 0), let newest = rows.int64(0, 1), oldest <= newest else { return nil }
        return UInt64(oldest)...UInt64(newest)
    }

    func removeSegments(of replica: String, through sequence: UInt64) throws {
        try run("DELETE FROM vein_segments WHERE replica = $1 AND sequence <= $2", [Array(replica.utf8), Self.int8(Int64(sequence))])
    }

    func snapshotHeader() throws -> SealedHeader {
        let rows = try run("SELECT substring(data FROM 1 FOR $1) FROM vein_snapshot WHERE part = 0", [Self.int4(Int32(SealedHeader.length))])
        guard rows.count == 1, let bytes = rows.bytes(0, 0) else { throw FileError.notFound(snapshotName) }
        return try staged(bytes, at: staging + "/snapshot-header.vseal", name: snapshotName) { try SealedFile.header(of: $0) }
    }

    func lock(replica: String) throws -> () -> Void {
        let key = [UInt8]("vein-sync replica \(replica)".utf8)
        let taken = try run("SELECT pg_try_advisory_lock(hashtext($1))", [key]).bytes(0, 0)
        guard taken == [1] else { throw SyncError.busy(location) }
        return { [self] in _ = try? run("SELECT pg_advisory_unlock(hashtext($1))", [key]) }
    }

    var tellsOfNews: Bool { true }

    /// Waits on the channel a push notifies.
    func waitForNews(seconds: Double) throws -> Bool {
        if !listening {
            try run("LISTEN \(Self.channel)")
            listening = true
        }
        lock.lock()
        defer { lock.unlock() }
        do { return try connection.waitForNotification(seconds: seconds) } catch { throw Self.sync(error, location) }
    }

    // MARK: Helpers

    /// Runs `body` with `bytes` (a row's ciphertext) staged at `path`; a damaged file is named `name`.
    private func staged<T>(_ bytes: [UInt8], at path: String, name: String, _ body: (String) throws -> T) throws -> T {
        defer { unlink(path) }
        let descriptor = try Self.createStaged(path)
        defer { close(descriptor) }
        try FileSystem.writeAll(descriptor, bytes, path: path)
        return try Self.naming(path, as: name) { try body(path) }
    }

    /// Lets `seal` write a sealed file at `path`, hands its bytes to `insert`, and tells listeners.
    private func sealing<T>(at path: String, _ seal: (String) throws -> T, insert: ([UInt8]) throws -> Void) throws -> T {
        unlink(path)
        defer { unlink(path) }
        let result = try seal(path)
        let reader = try FileReader(path: path)
        try insert(try reader.next(max(reader.size, 1)) ?? [])
        try run("SELECT pg_notify($1, '')", [Array(Self.channel.utf8)])
        return result
    }

    /// Runs a statement, its failure told as sync's.
    @discardableResult
    private func run(_ sql: String, _ parameters: [[UInt8]] = []) throws -> PostgresConnection.Rows {
        lock.lock()
        defer { lock.unlock() }
        do { return try connection.execute(sql, parameters) } catch let failure where failure.sqlState == "42P01" {
            throw failure  // an undefined table: the caller says what it means
        } catch { throw Self.sync(error, location) }
    }

    /// Runs an insert of a row written once; false when its key is taken already (another writer's row),
    /// which `run` would report as a refusal.
    private func insertOnce(_ sql: String, _ parameters: [[UInt8]]) throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        do {
            _ = try connection.execute(sql, parameters)
            return true
        } catch let failure where failure.isUniqueViolation {
            return false
        } catch { throw Self.sync(error, location) }
    }

    private static func sync(_ failure: PostgresConnection.Failure, _ location: String) -> SyncError {
        if failure.connectionLost { return .relayUnavailable(location, reason: failure.message) }
        return .relayRefused(location, reason: failure.message, full: failure.isOutOfResources)
    }

    /// A damaged staging file named as the relay's row it came from.
    private static func naming<T>(_ path: String, as name: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch BackupError.damaged(let file, let reason) where file == path {
            throw BackupError.damaged(file: name, reason: reason)
        }
    }

    private static func createStaged(_ path: String) throws -> Int32 {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileSystem.writeError(path, errno, creating: true) }
        return descriptor
    }

    static func int8(_ value: Int64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
    static func int4(_ value: Int32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// `url` as messages show it: a password in it is left out.
    static func withoutPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = nil
        return components.string ?? url
    }
}
