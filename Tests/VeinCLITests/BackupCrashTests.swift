import Foundation
import Testing

/// kill -9 at random moments of `vein backup --continuous` and `vein restore` (docs/backup.md#crashes):
/// the next run goes on, no file is written twice or skipped (the chain verifies, against the store's
/// record too, and the restore holds every commit once), and a restore is whole or absent.
@Suite struct BackupCrashTests {
    /// Starts `vein` with `arguments` and SIGKILLs it after `delay` microseconds; whether it was still
    /// running then.
    @discardableResult
    static func killed(_ r: VeinRunner, _ arguments: [String], after delay: useconds_t) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: VeinRunner.binary)
        process.arguments = arguments
        process.currentDirectoryURL = r.directory
        process.environment = VeinRunner.isolatedEnvironment
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        usleep(delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
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
        var kills = 0
        for round in 0..<20 {
            for i in 0..<3 {
                let insert = try r.vein(["query", "b.vein", #"insert Post(title: "r\#(round)-\#(i)", content: "\#(blob)")"#] + key)
                try #require(insert.status == 0, "\(insert.stderr)")
            }
            if round % 5 == 4 {
                try #require(try r.vein(["query", "b.vein", #"update Post where title.hasPrefix("r\#(round - 1)") set views = views + 1"#] + key).status == 0)
            }
            if try Self.killed(r, ["backup", "b.vein", "dest", "--continuous"] + key, after: delay(below: 45_000)) { kills += 1 }
        }
        #expect(kills >= 5, "most runs were killed while they ran (\(kills) of 20)")
        let last = try r.vein(["backup", "b.vein", "dest", "--continuous"] + key)
        #expect(last.status == 0, "the run after \(kills) killed ones goes on: \(last.stderr)")
        let verify = try r.vein(["backup", "verify", "dest", "--store", "b.vein"] + key)
        #expect(verify.status == 0, "\(verify.stderr)")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: r.path("dest")).filter { $0.contains("sealing") || $0.contains(".snapshot") }
        #expect(leftovers.isEmpty, "the last run removed what killed runs left: \(leftovers)")
        let expected = try r.vein(["export", "b.vein"] + key).stdout

        var restoresKilled = 0
        for attempt in 0..<8 {
            if try Self.killed(r, ["restore", "dest", "r.vein"] + key, after: delay(below: 150_000)) { restoresKilled += 1 }
            if r.exists("r.vein") {
                // Whole, or not there at all.
                #expect(try r.vein(["verify", "r.vein"] + key).status == 0, "attempt \(attempt)")
                #expect(try r.vein(["export", "r.vein"] + key).stdout == expected, "attempt \(attempt)")
                try FileManager.default.removeItem(atPath: r.path("r.vein"))
                for companion in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: r.path("r.vein" + companion)) }
            }
        }
        #expect(restoresKilled >= 3, "restores killed while they ran: \(restoresKilled) of 8")
        let restored = try r.vein(["restore", "dest", "r.vein"] + key)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try r.vein(["export", "r.vein"] + key).stdout == expected)
        let stray = try FileManager.default.contentsOfDirectory(atPath: r.directory.path).filter { $0.contains("restoring") || $0.contains("creating") }
        #expect(stray.isEmpty, "a restore removes what killed ones left beside NEW: \(stray)")
    }
}
