import Foundation

/// A PostgreSQL server of the tests' own (Debian's `postgresql` package, which scripts/setup installs):
/// a cluster made with `initdb` in a new folder, listening only on a Unix socket in that folder, run as
/// the `postgres` user when the tests run as root (initdb refuses root), stopped when the test process
/// exits. Each test makes a database of its own on the shared server (`database()`); a test that stops
/// its server starts one of its own.
final class PostgresServer: @unchecked Sendable {
    /// Debian's server binaries (not on PATH): VEIN_POSTGRES_BIN, or the newest /usr/lib/postgresql/N/bin.
    static let binaries: String? = {
        if let folder = ProcessInfo.processInfo.environment["VEIN_POSTGRES_BIN"], !folder.isEmpty { return folder }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).sorted().last.map { "/usr/lib/postgresql/\($0)/bin" }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") ? $0 : nil }
    }()

    /// Whether a server can be made here (for `.enabled(if:)`: a test without one reports "skipped").
    static var available: Bool { binaries != nil }

    /// The server the tests share, started at first use.
    static let shared: Result<PostgresServer, Error> = Result { try PostgresServer() }

    let folder: String
    var socketFolder: String { folder }
    private let runner: VeinRunner
    private static let stopAtExit = NSLock()
    nonisolated(unsafe) private static var running: [PostgresServer] = []
    private let databaseCount = NSLock()
    private var databases = 0

    init() throws {
        guard let binaries = Self.binaries else { throw Failure(text: "no PostgreSQL server binaries (install Debian's postgresql)") }
        // Under /tmp (short: a socket path must stay under 108 bytes) and reachable by the postgres user.
        var template = Array("/tmp/vein-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(text: "mkdtemp: \(String(cString: strerror(errno)))") }
        folder = String(cString: made)
        // Commands run in the folder: the postgres user could not enter a root temporary folder.
        runner = VeinRunner(existing: URL(fileURLWithPath: folder))
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else { throw Failure(text: "no postgres user to run the server as") }
            chown(folder, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        try asServerUser(binaries + "/initdb", ["-D", folder + "/data", "--auth=trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
        try start()
        Self.stopAtExit.lock()
        if Self.running.isEmpty { atexit { PostgresServer.stopAll() } }
        Self.running.append(self)
        Self.stopAtExit.unlock()
    }

    /// Starts the server (again, after `stop`), waiting until it takes connections.
    func start() throws {
        try asServerUser(Self.binaries! + "/pg_ctl", ["start", "-w", "-D", folder + "/data", "-l", folder + "/log",
                                                       "-o", "-k \(folder) -c listen_addresses='' -c fsync=off"])
    }

    /// Stops the server at once (SIGQUIT to every backend, as a crash or a pulled cable would look).
    func stop() throws {
        try asServerUser(Self.binaries! + "/pg_ctl", ["stop", "-w", "-m", "immediate", "-D", folder + "/data"])
    }

    /// A new empty database on this server, as a relay URL.
    func database() throws -> String {
        databaseCount.lock()
        databases += 1
        let name = "relay\(databases)"
        databaseCount.unlock()
        try psql("postgres", "CREATE DATABASE \(name)")
        return url(name)
    }

    func url(_ database: String) -> String { "postgres:///\(database)?host=\(socketFolder)&user=postgres" }

    /// Runs `sql` in `database` as the server's superuser, returning what psql printed (unaligned, no headers).
    @discardableResult
    func psql(_ database: String, _ sql: String) throws -> String {
        let result = try runner.run(Self.binaries! + "/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketFolder,
                                                               "-U", "postgres", "-d", database, "-c", sql])
        guard result.status == 0 else { throw Failure(text: "psql \(sql): \(result.stderr)") }
        return result.stdout
    }

    /// `pg_dump` of `database`: everything the relay's host can read.
    func dump(_ database: String) throws -> String {
        let result = try runner.run(Self.binaries! + "/pg_dump", ["-h", socketFolder, "-U", "postgres", database])
        guard result.status == 0 else { throw Failure(text: "pg_dump: \(result.stderr)") }
        return result.stdout
    }

    private func asServerUser(_ program: String, _ arguments: [String]) throws {
        let result = getuid() == 0 ? try runner.run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
                                   : try runner.run(program, arguments)
        guard result.status == 0 else {
            let log = (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""
            throw Failure(text: "\(program) \(arguments.joined(separator: " ")): \(result.stderr)\(result.stdout)\n\(log)")
        }
    }

    private static func stopAll() {
        for server in running {
            try? server.stop()
            try? FileManager.default.removeItem(atPath: server.folder)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }
}

extension VeinRunner {
    /// A runner working in `directory`, which exists.
    init(existing directory: URL) { self.directory = directory }
}
