import Foundation
import Testing

/// kill -9 at random moments of `vein backup --continuous` and `vein restore` (docs/backup.md#crashes):
/// the next run goes on, no file is written twice or skipped (the chain verifies, against the store's
/// record too, and the restore holds every commit once), and a restore is whole or absent.
@Suite struct BackupCrashTests {
    /// How long a whole run of `vein` with `arguments` takes here, in microseconds: kills are spread over it,
    /// so they land while it runs on a slow machine as on a fast one.
    static func duration(_ r: VeinRunner, _ arguments: [String]) throws -> UInt64 {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try r.vein(arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return max(1_000, (DispatchTime.now().uptimeNanoseconds - start) / 1_000)
    }

    /// Starts `vein` with `arguments` and SIGKILLs it after `delay` microseconds; whether it was still
    /// running then.
    @discardableResult
    static func killed(_ r: VeinRunner, _ arguments: [String], after delay: useconds_t) throws -> Bool {
        // Spawned and reaped here (not with Foundation's Process, whose waitUntilExit was seen never to
        // return for a child killed while tests in parallel started a server).
        let pid = try r.start(VeinRunner.binary, arguments)
        usleep(delay)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == SIGKILL  // WIFSIGNALED with SIGKILL: it was still running
    }

    @Test func aKilledBackupOrRestoreLeavesWhatTheNextRunContinues() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let key = ["--key-file", "k"]
        try #require(try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--history"] + key).status == 0)
        var seed: UInt64 = 20261207
        /// Reproducible delays (a linear congruential step), so a failure can be run again as it happened.
        func delay(below limit: UInt64) -> useconds_t {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return useconds_t((seed >> 33) % limit)
        }
        let blob = String(repeating: "long text of a post; ", count: 400)
        let pass = ["backup", "b.vein", "dest", "--continuous"] + key
        let passTime = try Self.duration(r, pass)
        var passLimit = passTime
        var kills = 0, round = 0
        // Until enough runs were killed while they ran (a kill after a run ended tests nothing).
        while kills < 8 && round < 60 {
            defer { round += 1 }
            for i in 0..<3 {
                let insert = try r.vein(["query", "b.vein", #"insert Post(title: "r\#(round)-\#(i)", content: "\#(blob)")"#] + key)
                try #require(insert.status == 0, "\(insert.stderr)")
            }
            if round % 5 == 4 {
                try #require(try r.vein(["query", "b.vein", #"update Post where title.hasPrefix("r\#(round - 1)") set views = views + 1"#] + key).status == 0)
            }
            // The bound follows what happens: a run that ended before its kill shortens it (other tests
            // may have made the measured run slow), one killed lengthens it again.
            if try Self.killed(r, pass, after: delay(below: passLimit)) {
                kills += 1
                passLimit = min(4 * passTime, passLimit * 5 / 4)
            } else {
                passLimit = max(1_000, passLimit * 3 / 4)
            }
        }
        #expect(kills >= 8, "runs killed while they ran: \(kills) of \(round) (a whole run took \(passTime) µs)")
        let last = try r.vein(["backup", "b.vein", "dest", "--continuous"] + key)
        #expect(last.status == 0, "the run after \(kills) killed ones goes on: \(last.stderr)")
        let verify = try r.vein(["backup", "verify", "dest", "--store", "b.vein"] + key)
        #expect(verify.status == 0, "\(verify.stderr)")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: r.path("dest")).filter { $0.contains("sealing") || $0.contains(".snapshot") }
        #expect(leftovers.isEmpty, "the last run removed what killed runs left: \(leftovers)")
        let expected = try r.vein(["export", "b.vein"] + key).stdout

        let restore = ["restore", "dest", "r.vein"] + key
        let restoreTime = try Self.duration(r, restore)
        var restoreLimit = restoreTime
        try FileManager.default.removeItem(atPath: r.path("r.vein"))
        var restoresKilled = 0, attempt = 0
        while restoresKilled < 4 && attempt < 40 {
            defer { attempt += 1 }
            if try Self.killed(r, restore, after: delay(below: restoreLimit)) {
                restoresKilled += 1
                restoreLimit = min(4 * restoreTime, restoreLimit * 5 / 4)
            } else {
                restoreLimit = max(1_000, restoreLimit * 3 / 4)
            }
            if r.exists("r.vein") {
                // Whole, or not there at all.
                #expect(try r.vein(["verify", "r.vein"] + key).status == 0, "attempt \(attempt)")
                #expect(try r.vein(["export", "r.vein"] + key).stdout == expected, "attempt \(attempt)")
                try FileManager.default.removeItem(atPath: r.path("r.vein"))
                for companion in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: r.path("r.vein" + companion)) }
            }
        }
        #expect(restoresKilled >= 4, "restores killed while they ran: \(restoresKilled) of \(attempt)")
        let restored = try r.vein(["restore", "dest", "r.vein"] + key)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try r.vein(["export", "r.vein"] + key).stdout == expected)
        let stray = try FileManager.default.contentsOfDirectory(atPath: r.directory.path).filter { $0.contains("restoring") || $0.contains("creating") }
        #expect(stray.isEmpty, "a restore removes what killed ones left beside NEW: \(stray)")
    }
}
