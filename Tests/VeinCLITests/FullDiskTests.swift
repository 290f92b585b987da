import Foundation
import Testing
import Vein

/// A small tmpfs mounted inside a runner's directory (tests run as root), so a command runs out of space
/// partway through. Unmount it before the runner cleans up.
struct SmallDisk {
    let runner: VeinRunner
    let name: String

    init(_ runner: VeinRunner, size: String, name: String = "disk") throws {
        self.runner = runner
        self.name = name
        try FileManager.default.createDirectory(atPath: runner.path(name), withIntermediateDirectories: true)
        let mounted = try runner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", runner.path(name)])
        try #require(mounted.status == 0, "mount a tmpfs (tests run as root): \(mounted.stderr)")
    }

    /// The path of `file` on the disk, relative to the runner's directory (as commands are given it).
    func relative(_ file: String) -> String { name + "/" + file }
    func path(_ file: String) -> String { runner.path(relative(file)) }

    /// Fills the disk with a file of zeros until only `kiB` KiB are free.
    func fill(leavingKiB kiB: Int) throws {
        var info = statvfs()
        try #require(statvfs(runner.path(name), &info) == 0)
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        try #require(free > kiB * 1024)
        try Data(count: free - kiB * 1024).write(to: URL(fileURLWithPath: path("filler")))
    }

    /// What is on the disk besides the filler.
    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: runner.path(name)).filter { $0 != "filler" }.sorted()
    }

    func unmount() { _ = try? runner.run("/bin/umount", [runner.path(name)]) }
}

/// Commands that write on a disk that fills up partway: each fails with exit 74 and one line naming the
/// problem, leaves nothing it was making behind, and leaves a store it changes in place as it was.
@Suite(.serialized) struct FullDiskTests {
    static let fullDisk = "vein: error: SQLite: database or disk is full"

    /// An import file of `posts` posts with 200-character contents (4476 posts: 1.4 MB, a 1.4 MB store).
    static func writeImportFile(_ r: VeinRunner, _ name: String, posts: Int) throws {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var text = "{\"vein\":1,\"app\":\"com.example.blog\",\"schemaVersion\":\"0.0.1\",\"models\":{\"Post\":["
        for i in 0..<posts {
            var n = i, suffix = ""
            for _ in 0..<16 { suffix = String(alphabet[n % 32]) + suffix; n /= 32 }
            text += (i == 0 ? "" : ",") + "{\"id\":\"01HZZZZZZZ\(suffix)\",\"title\":\"post \(i)\",\"content\":\"\(String(repeating: "x", count: 200))\",\"views\":\(i),\"publishedAt\":null,\"attachments\":[]}"
        }
        try r.write(name, text + "]}}\n")
    }

    /// A runner holding `s.vein` (encrypted with key file `k`) and `p.vein` (plaintext), 4476 posts each.
    static func stores() throws -> VeinRunner {
        let r = try VeinRunner()
        try writeImportFile(r, "data.json", posts: 4476)
        for (store, protection) in [("s.vein", ["--key-file", "k"]), ("p.vein", ["--plaintext"])] {
            let made = try r.vein(["import", store, "data.json", "--create", "--schema", VeinRunner.exampleManifest, "-q"] + protection)
            try #require(made.status == 0, "\(made.stderr)")
        }
        return r
    }

    /// Exit 74 with exactly one line, `message`.
    func expectFailure(_ result: VeinRunner.Result, _ messages: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 74, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(messages.contains(result.stderr), "one line naming the problem: \(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func createOnAFullDiskLeavesNoStore() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let disk = try SmallDisk(r, size: "1m")
        defer { disk.unmount() }
        // Enough room for the new file's WAL, not for the checkpoint that copies it into the file.
        try disk.fill(leavingKiB: 96)
        let result = try r.vein(["create", disk.relative("c.vein"), "--schema", VeinRunner.exampleManifest, "--plaintext"])
        // (Should the schema's tables grow, the WAL itself may no longer fit: SQLite then fails earlier, in
        // its shared-memory file, with an I/O error. Still 74, still nothing left.)
        expectFailure(result, [Self.fullDisk + "\n", "vein: error: SQLite: disk I/O error\n"])
        #expect(try disk.files() == [], "no store and no temporary left")
    }

    /// The issue's case: with 1–2 MB free the rows fit in the WAL but not in the file; the import
    /// reported success and linked a store without its rows into place.
    @Test func importCreateOnAFullDiskLeavesNoStore() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try Self.writeImportFile(r, "data.json", posts: 4476)
        let disk = try SmallDisk(r, size: "2m")
        defer { disk.unmount() }
        let result = try r.vein(["import", disk.relative("n.vein"), "data.json", "--create", "--schema", VeinRunner.exampleManifest, "--plaintext"])
        expectFailure(result, [Self.fullDisk + "\n"])
        #expect(try disk.files() == [])
    }

    @Test func importIntoAStoreOnAFullDiskChangesNothing() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try Self.writeImportFile(r, "data.json", posts: 9000)
        let disk = try SmallDisk(r, size: "2m")
        defer { disk.unmount() }
        try #require(try r.vein(["create", disk.relative("s.vein"), "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        try #require(try r.vein(["query", disk.relative("s.vein"), "insert Post(title: \"kept\", content: \"c\")"]).status == 0)
        let result = try r.vein(["import", disk.relative("s.vein"), "data.json"])
        expectFailure(result, [Self.fullDisk + "\n"])
        #expect(try r.vein(["verify", disk.relative("s.vein"), "-q"]).status == 0)
        #expect(try r.vein(["query", disk.relative("s.vein"), "count Post"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    @Test func migrateOnAFullDiskLeavesTheStoreAtItsVersion() throws {
        let r = try Self.stores()
        defer { r.cleanUp() }
        let disk = try SmallDisk(r, size: "2m")
        defer { disk.unmount() }
        try FileManager.default.copyItem(atPath: r.path("s.vein"), toPath: disk.path("s.vein"))
        let before = try r.vein(["export", disk.relative("s.vein"), "--key-file", "k"]).stdout
        let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path
        let result = try r.vein(["migrate", disk.relative("s.vein"), "--plan", plan, "--key-file", "k"])
        expectFailure(result, [Self.fullDisk + "\n"])
        #expect(try r.vein(["verify", disk.relative("s.vein"), "--key-file", "k", "-q"]).status == 0)
        #expect(try r.vein(["export", disk.relative("s.vein"), "--key-file", "k"]).stdout == before, "every row at 0.0.1")
    }

    /// Rotation copies the store; the copy does not fit. It exited 1 ("unexpected") before.
    @Test func keyRotateOnAFullDiskKeepsTheOldKeyAndFile() throws {
        let r = try Self.stores()
        defer { r.cleanUp() }
        let disk = try SmallDisk(r, size: "2m")
        defer { disk.unmount() }
        try FileManager.default.copyItem(atPath: r.path("s.vein"), toPath: disk.path("s.vein"))
        try FileManager.default.copyItem(atPath: r.path("k"), toPath: disk.path("k"))
        let key = try String(contentsOfFile: disk.path("k"), encoding: .utf8)
        let result = try r.vein(["key", "rotate", disk.relative("s.vein"), "--key-file", disk.relative("k")])
        expectFailure(result, [Self.fullDisk + "\n"])
        #expect(try String(contentsOfFile: disk.path("k"), encoding: .utf8) == key)
        #expect(try disk.files() == ["k", "s.vein"], "no copy, no pending key left")
        #expect(try r.vein(["verify", disk.relative("s.vein"), "--key-file", disk.relative("k"), "-q"]).status == 0)
    }

    @Test(arguments: ["backup", "encrypt", "decrypt"])
    func copyOnAFullDiskLeavesNoDestination(command: String) throws {
        let r = try Self.stores()
        defer { r.cleanUp() }
        let disk = try SmallDisk(r, size: "1m")
        defer { disk.unmount() }
        let arguments: [String]
        switch command {
        case "encrypt": arguments = ["encrypt", "p.vein", disk.relative("d.vein"), "--key-file", "new.key"]
        default: arguments = [command, "s.vein", disk.relative("d.vein"), "--key-file", "k"]
        }
        let result = try r.vein(arguments)
        expectFailure(result, [Self.fullDisk + "\n"])
        #expect(try disk.files() == [])
        #expect(!r.exists("new.key"), "the key made for the copy is withdrawn")
    }

    @Test func exportToAFileOnAFullDiskLeavesNoFile() throws {
        let r = try Self.stores()
        defer { r.cleanUp() }
        let disk = try SmallDisk(r, size: "1m")
        defer { disk.unmount() }
        let result = try r.vein(["export", "s.vein", "-o", disk.relative("e.json"), "--key-file", "k"])
        expectFailure(result, ["vein: error: cannot write \(disk.relative("e.json")): No space left on device\n"])
        #expect(try disk.files() == [])
        // Standard output redirected to the full disk: the same I/O error, not "cannot create" (73).
        let redirected = try r.run("/bin/sh", ["-c", "\"$0\" export s.vein --key-file k > \(disk.relative("o.json"))", VeinRunner.binary])
        expectFailure(redirected, ["vein: error: cannot write standard output: No space left on device\n"])
    }

    /// A relay that fills up: `vein sync` fails with one line and exit 74, leaves no part of a segment
    /// and records nothing as sent; once there is room, the next run sends it and the other replica merges.
    @Test func aSyncToAFullRelaySendsNothingAndTheNextRunGoesOn() throws {
        let r = try VeinRunner()
        let disk = try SmallDisk(r, size: "4m")
        defer { disk.unmount(); r.cleanUp() }
        for arguments in [["create", "a.vein", "--schema", VeinRunner.exampleManifest, "--history", "--plaintext"],
                          ["sync", "init", "a.vein", "--relay", disk.relative("relay"), "--sync-key-file", "sync.key"],
                          ["sync", "join", "b.vein", "--relay", disk.relative("relay"), "--sync-key-file", "sync.key", "--plaintext"],
                          ["query", "a.vein", #"insert Post(title: "large", content: "\#(String(repeating: "z", count: 100_000))")"#]] {
            let result = try r.vein(arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        try disk.fill(leavingKiB: 16)
        let full = try r.vein(["sync", "a.vein"])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.split(separator: "\n").first?.contains("No space left on device") == true, "\(full.stderr)")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: disk.path("relay")).filter { $0.contains("vseal") && !$0.hasSuffix("snapshot.vseal") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        let status = try r.vein(["sync", "status", "a.vein"]).stdout
        #expect(status.contains(", 1 commit not yet sent\n"), "\(status)")
        try FileManager.default.removeItem(atPath: disk.path("filler"))
        #expect(try r.vein(["sync", "a.vein"]).status == 0)
        #expect(try r.vein(["sync", "b.vein"]).status == 0)
        #expect(try r.vein(["export", "b.vein"]).stdout.contains(#""title":"large""#))
    }
}
