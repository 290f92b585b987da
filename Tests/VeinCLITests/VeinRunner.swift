import Foundation

/// Runs the built `vein` binary as a user would, capturing what it prints and its exit status.
struct VeinRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `VEIN_BINARY` when set, otherwise the debug build.
    /// Held from making a child's pipes to closing the child's ends of them (see `run`).
    static let spawnLock = NSLock()

    static let binary: String = ProcessInfo.processInfo.environment["VEIN_BINARY"]
        ?? packageRoot.appendingPathComponent(".build/debug/vein").path

    static let exampleManifest = packageRoot.appendingPathComponent("examples/blog.json5").path
    static let withSecretService = packageRoot.appendingPathComponent("Tests/Scripts/with-secret-service").path

    /// An environment with no way to reach a keyring, so tests never touch a real one by accident.
    static var isolatedEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/vein-test-bus"
        env.removeValue(forKey: "VEIN_KEY")
        env.removeValue(forKey: "NO_COLOR")
        return env
    }

    let directory: URL

    /// A runner working in a fresh temporary directory.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vein-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    func vein(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        try run(VeinRunner.binary, arguments, stdin: stdin, environment: environment)
    }

    /// Runs any program in the runner's directory with the isolated environment plus `environment`.
    ///
    /// Spawned with posix_spawn and an empty signal mask: Foundation's Process lets the child inherit the
    /// test runner thread's mask, in which SIGTERM is blocked, and daemons started from such a child
    /// (dbus-daemon, gnome-keyring) then never stop.
    func run(_ program: String, _ arguments: [String], stdin: String? = nil,
             environment: [String: String] = [:]) throws -> Result {
        // `env -C DIR` changes directory in the child, which posix_spawn cannot portably do.
        let argv = ["/usr/bin/env", "-C", directory.path, program] + arguments
        let env = VeinRunner.isolatedEnvironment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }

        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        // Tests run in parallel: a child spawned by another test while these pipes are open must not inherit
        // them (it would hold this child's stdin open, and neither child would ever see EOF — seen hanging two
        // `vein repl` scripts). So pipes are made close-on-exec, and made and handed over under one lock.
        VeinRunner.spawnLock.lock()
        var spawnLocked = true
        defer { if spawnLocked { VeinRunner.spawnLock.unlock() } }
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw POSIXError(.EMFILE) }
        for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in inPipe + outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }

        var pid: pid_t = 0
        let rc = Self.spawn(&pid, argv, env, &actions)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        VeinRunner.spawnLock.unlock()
        spawnLocked = false
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL)
        }
        let input = FileHandle(fileDescriptor: inPipe[1], closeOnDealloc: true)
        let output = FileHandle(fileDescriptor: outPipe[0], closeOnDealloc: true)
        let errors = FileHandle(fileDescriptor: errPipe[0], closeOnDealloc: true)
        // Drain both pipes at once, so neither can fill up and block the child.
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = errors.readDataToEndOfFile()
            group.leave()
        }
        if let stdin { input.write(Data(stdin.utf8)) }
        try input.close()
        let outData = output.readDataToEndOfFile()
        group.wait()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exitStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    /// Starts `program` in the runner's directory with the isolated environment, its input and output
    /// /dev/null, and returns its pid: the caller reaps it (`waitpid`).
    func start(_ program: String, _ arguments: [String]) throws -> pid_t {
        let argv = ["/usr/bin/env", "-C", directory.path, program] + arguments
        let env = VeinRunner.isolatedEnvironment.map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        VeinRunner.spawnLock.lock()
        let rc = Self.spawn(&pid, argv, env, &actions)
        VeinRunner.spawnLock.unlock()
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
        return pid
    }

    /// posix_spawn with an empty signal mask and every handler at its default (see `run`).
    private static func spawn(_ pid: inout pid_t, _ argv: [String], _ env: [String], _ actions: inout posix_spawn_file_actions_t) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t(), defaults = sigset_t()
        sigemptyset(&emptyMask)
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup($0) } + [nil]
        defer { (cArgv + cEnv).forEach { free($0) } }
        return posix_spawn(&pid, argv[0], &actions, &attributes, cArgv, cEnv)
    }

    func write(_ name: String, _ text: String, mode: Int = 0o644) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(name))
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }
}

extension VeinRunner {
    /// A runner whose directory holds b.vein, the example blog store, encrypted with a new key in k.
    static func blogStore() throws -> VeinRunner {
        let r = try VeinRunner()
        let created = try r.vein(["create", "b.vein", "--schema", exampleManifest, "--key-file", "k"])
        guard created.status == 0 else { throw CreateFailed(stderr: created.stderr) }
        return r
    }

    struct CreateFailed: Error { let stderr: String }

    /// `vein query b.vein STATEMENT --key-file k` on the store `blogStore` made.
    func query(_ statement: String, _ extra: [String] = []) throws -> Result {
        try vein(["query", "b.vein", statement, "--key-file", "k"] + extra)
    }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}
