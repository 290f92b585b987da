import CVeinFaultVFS
import Foundation
import Synchronization
import Testing
import Vein
@testable import VeinCLI

/// What the fault-injection loop makes fail: SQLite's I/O calls (through the test VFS), or the engine's own
/// file calls (`FileCalls`), with an I/O error or a full disk; or the power, after a sync.
enum FaultMode: String, CaseIterable, Sendable {
    case sqliteIOError = "SQLite I/O error"
    case sqliteDiskFull = "SQLite disk full"
    case fileIOError = "file-call I/O error"
    case fileDiskFull = "file-call disk full"
    case powerLoss = "power loss"

    var mode: vein_fault_mode {
        switch self {
        case .sqliteIOError, .fileIOError: VEIN_FAULT_IO_ERROR
        case .sqliteDiskFull, .fileDiskFull: VEIN_FAULT_DISK_FULL
        case .powerLoss: VEIN_FAULT_POWER_LOSS
        }
    }

    /// Power loss counts the syncs of both: it cuts SQLite and the file calls alike.
    var domains: Int32 {
        switch self {
        case .sqliteIOError, .sqliteDiskFull: Int32(VEIN_FAULT_SQLITE)
        case .fileIOError, .fileDiskFull: Int32(VEIN_FAULT_FILE_SEAM)
        case .powerLoss: Int32(VEIN_FAULT_SQLITE | VEIN_FAULT_FILE_SEAM)
        }
    }
}

/// The test VFS and the file-call injector, installed once for the process. Both pass every call through
/// until `arm`; only one run is armed at a time (FaultInjectionTests is serialized, and no other suite arms).
enum FaultInjector {
    static let installed: Bool = {
        guard vein_fault_vfs_install() == SQLITE_OK_CODE else { return false }
        FileCalls.inject { kind, path in
            var code: Int32 = 0
            switch vein_fault_file_call(vein_file_call(rawValue: UInt32(kind.rawValue)), path, &code) {
            case VEIN_FILE_FAIL: return .fail(errno: code)
            case VEIN_FILE_SKIP: return .skip
            default: return .proceed
            }
        }
        return true
    }()
    static let SQLITE_OK_CODE: Int32 = 0

    /// What one armed run saw.
    struct Observation {
        /// The calls counted (writes only for disk-full, syncs only for power loss).
        var count: Int
        var reached: Bool
        /// The call that failed: "rename", "xWrite"…
        var failedCall: String?
        var syncsAfterPowerLoss: Int
    }

    /// Runs `body` with the `n`th counted call under `directory` failing as `mode` says (n = 0: none).
    static func run<T>(_ mode: FaultMode, at n: Int, under directory: String, _ body: () throws -> T) rethrows -> (T, Observation) {
        precondition(installed)
        vein_fault_arm(directory, mode.mode, mode.domains, Int64(n))
        defer { vein_fault_disarm() }
        let result = try body()
        vein_fault_disarm()
        let kind = Int(vein_fault_failed_kind())
        return (result, Observation(count: Int(vein_fault_count()), reached: vein_fault_reached() != 0,
                                    failedCall: kind == 0 ? nil : callName(kind),
                                    syncsAfterPowerLoss: Int(vein_fault_syncs_after_power_loss())))
    }

    static func callName(_ kind: Int) -> String {
        if kind > 100 {
            return ["xOpen", "xDelete", "xRead", "xWrite", "xTruncate", "xSync", "xFileSize", "xLock", "xShmMap"][kind - 101]
        }
        if kind == Int(VEIN_KEYRING_LOOKUP.rawValue) { return "keyring lookup" }
        if kind == Int(VEIN_KEYRING_CHANGE.rawValue) { return "keyring change" }
        return FileCalls.Kind(rawValue: Int32(kind)).map { "\($0)" } ?? "call \(kind)"
    }
}

/// A command's exit status and what it printed.
struct CommandOutcome: Sendable {
    var status: Int32
    var stdout = ""
    var stderr = ""

    /// `vein` with `arguments`, run in this process (so that the test VFS and the file-call injector see
    /// its calls), with no keyring reachable.
    static func vein(_ arguments: [String]) -> CommandOutcome {
        final class Printed: Sendable { let text = Mutex<(out: String, err: String)>(("", "")) }
        let printed = Printed()
        let console = Console(environment: VeinRunner.isolatedEnvironment) { descriptor, text in
            printed.text.withLock {
                if descriptor == STDOUT_FILENO { $0.out += text } else { $0.err += text }
            }
        }
        let status = VeinCommandLine.run(arguments, console: console)
        return printed.text.withLock { CommandOutcome(status: status, stdout: $0.out, stderr: $0.err) }
    }

    /// An engine call, its error reported as `vein` reports it (ErrorReporting).
    static func engine(_ body: () throws -> Void) -> CommandOutcome {
        do {
            try body()
            return CommandOutcome(status: 0)
        } catch {
            let report = ErrorReporting.report(error)
            return CommandOutcome(status: report.exitCode.rawValue,
                                  stderr: report.messages.map { "vein: error: \($0)\n" }.joined())
        }
    }
}

/// One operation under the loop: files it starts from, the operation, and how to read what it left.
struct FaultScenario: Sendable {
    let name: String
    /// Makes the files the operation starts from in an empty directory (unarmed, once).
    let setUp: @Sendable (_ directory: String) throws -> Void
    /// The operation, armed, on a fresh copy of those files.
    let operation: @Sendable (_ directory: String) -> CommandOutcome
    /// What the directory holds, as text to compare: every store in it opened, verified and exported.
    /// Read disarmed, after the run. `afterPowerLoss`: what a crash may leave on top of the old state and
    /// the next run takes up (a new key file whose store never appeared) is not part of the state.
    let state: @Sendable (_ directory: String, _ afterPowerLoss: Bool) throws -> String
    /// Checks beyond "old or new" after a run that exited 0 (key files promoted, no pending key left).
    var afterSuccess: (@Sendable (_ directory: String) throws -> Void)? = nil
    /// Checks beyond "old or new" after a run that failed (what the message says).
    var afterFailure: (@Sendable (_ directory: String, _ outcome: CommandOutcome) -> Void)? = nil
    /// Whether a failed run may leave the file `name` because the state needs it (a rotation's pending key
    /// once the store is under the new key).
    var mayLeave: (@Sendable (_ directory: String, _ name: String) -> Bool)? = nil
}

/// What the loop covered for one scenario and mode.
struct FaultCoverage: CustomStringConvertible {
    let scenario: String
    let mode: FaultMode
    /// Counted calls of an unfaulted run.
    let calls: Int
    /// The N that were run (each a fresh copy, one fault).
    let runs: Int
    let failures: [String: Int]

    var description: String {
        "\(scenario), \(mode.rawValue): \(calls) calls, \(runs) runs; exits \(failures.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " "))"
    }
}

/// The loop: for N = 1, 1 + step, 1 + 2·step… (and each of the last `step` calls) a fresh copy of the
/// scenario's files, the operation with its Nth call failing, then the checks; until a run completes
/// without reaching its fault, which must then have succeeded with the new state.
enum FaultLoop {
    /// Statuses a failed command may end with: an I/O error (74), damage it found (65, "damaged"), or a
    /// file it could not open to create (73: SQLite's CANTOPEN says no more).
    /// The message names what the user asked for, not the directory a step worked in (`directory`).
    static func checkFailure(_ outcome: CommandOutcome, _ label: String, failedCall: String?, directory: String) {
        let firstLine = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let damage = outcome.status == 65 && firstLine.contains("damaged")
        let cannotOpen = outcome.status == 73 && failedCall == "xOpen"
        #expect(outcome.status == 74 || damage || cannotOpen, "\(label): exit \(outcome.status): \(outcome.stderr)")
        #expect(firstLine.hasPrefix("vein: error: ") && firstLine.count > 13, "\(label): a clear message: \(outcome.stderr)")
        #expect(!firstLine.contains(directory + ":"), "\(label): the message names a directory, not the file: \(firstLine)")
    }

    /// VEIN_FAULTS_VERBOSE=1 prints every run's exit status and message (otherwise only the unusual ones).
    static let verbose = ProcessInfo.processInfo.environment["VEIN_FAULTS_VERBOSE"] == "1"

    static func run(_ scenario: FaultScenario, _ mode: FaultMode, step: Int) throws -> FaultCoverage {
        let root = try Workspace()
        defer {
            root.remove()
            FaultKeyring.forget(under: root.path)
        }
        let template = try root.directory("template")
        try scenario.setUp(template)
        let powerLoss = mode == .powerLoss
        let old = try scenario.state(try root.copy(template, to: "old"), powerLoss)
        let templateNames = try Workspace.names(template)

        // An unarmed run (only counting): the new state and the names it leaves.
        let clean = try root.copy(template, to: "clean")
        let (outcome, observation) = FaultInjector.run(mode, at: 0, under: clean) { scenario.operation(clean) }
        try #require(outcome.status == 0, "\(scenario.name): the operation fails without faults: \(outcome.stderr)")
        let cleanNames = try Workspace.names(clean)
        let new = try scenario.state(clean, powerLoss)
        try scenario.afterSuccess?(clean)
        // A command that reads only has no writes to fail; one that keeps to SQLite has no file calls.
        guard observation.count > 0 else { return FaultCoverage(scenario: scenario.name, mode: mode, calls: 0, runs: 0, failures: [:]) }

        var runs = 0
        var failures: [String: Int] = [:]
        var n = 1
        while true {
            let directory = try root.copy(template, to: "n\(n)")
            let (outcome, seen) = FaultInjector.run(mode, at: n, under: directory) { scenario.operation(directory) }
            runs += 1
            let label = "\(scenario.name), \(mode.rawValue), call \(n) (\(seen.failedCall ?? "none"))"
            let names = try Workspace.names(directory)
            let state = try scenario.state(directory, powerLoss)
            if !seen.reached {
                // The run went past every call: the loop covered them all, and it must have succeeded.
                #expect(outcome.status == 0 && state == new, "\(label): the unfaulted run: exit \(outcome.status) \(outcome.stderr)")
                #expect(n > 1, "\(label): the first call was never reached")
                break
            }
            failures["\(outcome.status)", default: 0] += 1
            if ![0, 74].contains(outcome.status) || verbose {
                print("fault run: \(label): exit \(outcome.status): \(outcome.stderr.prefix { $0 != "\n" })")
            }
            if mode == .powerLoss {
                // The process "died" at the cut; what it reported after is moot unless it synced nothing more.
                if outcome.status == 0 && seen.syncsAfterPowerLoss == 0 {
                    #expect(state == new, "\(label): reported done, but after the power loss the store is not the new one:\n\(diff(state, new))")
                } else {
                    #expect(state == old || state == new, "\(label): neither the old nor the new state:\n\(diff(state, old))")
                }
            } else {
                if outcome.status == 0 {
                    // SQLite may retry or work around a failed call; then the result must be whole.
                    #expect(state == new, "\(label): exit 0 but not the new state:\n\(diff(state, new))")
                    try scenario.afterSuccess?(directory)
                } else {
                    checkFailure(outcome, label, failedCall: seen.failedCall, directory: directory)
                    scenario.afterFailure?(directory, outcome)
                    #expect(state == old || state == new, "\(label): exit \(outcome.status), neither the old nor the new state:\n\(diff(state, old))")
                }
                // Nothing left behind, unless the failed call was the removal of that very thing (a name
                // no one holds any more, which the next command on the store removes).
                if seen.failedCall != "unlink" && seen.failedCall != "xDelete" {
                    let allowed = templateNames.union(cleanNames)
                    let left = names.subtracting(allowed).filter {
                        !Workspace.isSQLiteCompanion($0, of: allowed) && scenario.mayLeave?(directory, $0) != true
                    }
                    #expect(left.isEmpty, "\(label): exit \(outcome.status), left behind: \(left.sorted())")
                }
            }
            try? FileManager.default.removeItem(atPath: directory)
            // Sampled, every step-th call, and each of the last `step` calls: a command's last calls (the
            // close that merges and removes the WAL, the cleanup) are where a failure is easiest to miss.
            n += n >= observation.count - step ? 1 : step
            if n > 1_000_000 { Issue.record("\(label): the loop does not end"); break }
        }
        return FaultCoverage(scenario: scenario.name, mode: mode, calls: observation.count, runs: runs, failures: failures)
    }

    /// The first lines where `a` and `b` differ.
    static func diff(_ a: String, _ b: String) -> String {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false), y = b.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(x.count, y.count) where i >= x.count || i >= y.count || x[i] != y[i] {
            return "line \(i + 1): got \(i < x.count ? String(x[i].prefix(300)) : "(end)")\n   expected \(i < y.count ? String(y[i].prefix(300)) : "(end)")"
        }
        return "(equal)"
    }
}

/// A temporary directory of run directories, its path free of symbolic links (the VFS compares prefixes).
/// In memory (/dev/shm) where there is one: the loop makes thousands of fsyncs whose durability it does
/// not need (a power loss is simulated), and on a disk they are most of its time.
struct Workspace {
    let path: String

    static let base: URL = {
        let memory = URL(fileURLWithPath: "/dev/shm")
        return access(memory.path, W_OK) == 0 ? memory : FileManager.default.temporaryDirectory
    }()

    init() throws {
        let base = Self.base.appendingPathComponent("vein-faults-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = try FileSystem.realPath(base)
    }

    func directory(_ name: String) throws -> String {
        let directory = path + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A copy of every file in `source` (modes kept: key files stay 0600).
    func copy(_ source: String, to name: String) throws -> String {
        let target = try directory(name)
        try Self.copyContents(of: source, into: target)
        return target
    }

    /// Files keep their bytes and mode; folders (a backup's) are copied whole.
    static func copyContents(of source: String, into target: String) throws {
        for file in try FileManager.default.contentsOfDirectory(atPath: source) {
            let from = source + "/" + file
            let attributes = try FileManager.default.attributesOfItem(atPath: from)
            if attributes[.type] as? FileAttributeType == .typeDirectory {
                try FileManager.default.createDirectory(atPath: target + "/" + file, withIntermediateDirectories: false,
                                                        attributes: [.posixPermissions: attributes[.posixPermissions] ?? 0o755])
                try copyContents(of: from, into: target + "/" + file)
                continue
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: from))
            let made = FileManager.default.createFile(atPath: target + "/" + file, contents: data,
                                                      attributes: [.posixPermissions: attributes[.posixPermissions] ?? 0o644])
            try #require(made, "copy \(from)")
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    static func names(_ directory: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    /// `-wal`, `-shm` or `-journal` of a file in `names`: SQLite's own, which it recovers or removes.
    static func isSQLiteCompanion(_ name: String, of names: Set<String>) -> Bool {
        ["-wal", "-shm", "-journal"].contains { name.hasSuffix($0) && names.contains(String(name.dropLast($0.count))) }
    }
}

/// Reading what a store holds, for the loop's "old or new" comparison.
enum StoreState {
    static func keys(_ keyFile: String?) -> KeyOptions {
        KeyOptions(keyFile: keyFile, environment: [:], keyring: nil)
    }

    /// "absent", or the store verified and exported (JSON Lines, records in canonical order); a store
    /// that does not open or does not verify reads as its error, which matches no expected state.
    static func of(_ path: String, keyFile: String?, maskingIdsNotIn keep: Set<String>? = nil) -> String {
        of(path, keys: keys(keyFile), maskingIdsNotIn: keep)
    }

    static func of(_ path: String, keys: KeyOptions, maskingIdsNotIn keep: Set<String>? = nil) -> String {
        guard FileSystem.fileExists(path) else { return "absent" }
        do {
            let store = try Store.open(path, keys: keys, mode: .readOnly)
            let report = try StoreVerifier.verify(store)
            let problems = report.checks.flatMap(\.problems)
            guard problems.isEmpty else { return "verify: " + problems.joined(separator: "; ") }
            var exporter = StoreExporter(store: store)
            exporter.format = .jsonl
            var text = try exportText(exporter)
            if let keep { text = mask(text, keeping: keep) }
            return text
        } catch {
            return "does not open: \(error)"
        }
    }

    private static func exportText(_ exporter: StoreExporter) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vein-faults-state-\(UUID().uuidString)").path
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { unlink(file) }
        do { _ = try exporter.export(to: descriptor, name: file) } catch { close(descriptor); throw error }
        close(descriptor)
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    /// The export with every id not in `keep` replaced by "NEW" and its lines sorted: objects a run
    /// inserts get new ids each time.
    static func mask(_ text: String, keeping keep: Set<String>) -> String {
        let ulid = try! Regex("[0-9A-HJKMNP-TV-Z]{26}")
        return text.split(separator: "\n").map { line in
            line.replacing(ulid) { keep.contains(String($0.output[0].substring ?? "")) ? String($0.output[0].substring ?? "") : "NEW" }
        }.sorted().joined(separator: "\n")
    }
}
