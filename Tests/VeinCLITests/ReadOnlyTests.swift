import Foundation
import Testing

/// Stores a user may read but not write, and files a user may not read. Tests run as root, which file
/// modes do not stop, so vein runs here as the unprivileged user nobody (65534).
@Suite struct ReadOnlyTests {
    let manifest = VeinRunner.exampleManifest

    /// Runs vein as nobody in the runner's directory.
    @discardableResult
    func veinAsNobody(_ r: VeinRunner, _ arguments: [String]) throws -> VeinRunner.Result {
        try r.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", VeinRunner.binary] + arguments)
    }

    func chmod(_ r: VeinRunner, _ name: String, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: name.isEmpty ? r.directory.path : r.path(name))
    }

    /// A store with one post, made by nobody in a directory nobody may write.
    func store(_ r: VeinRunner, in folder: String, keyed: Bool) throws -> [String] {
        try chmod(r, "", 0o777)
        try FileManager.default.createDirectory(atPath: r.path(folder), withIntermediateDirectories: true)
        try chmod(r, folder, 0o777)
        let key = keyed ? ["--key-file", "\(folder)/k"] : []
        #expect(try veinAsNobody(r, ["create", "\(folder)/s.vein", "--schema", manifest] + (keyed ? key : ["--plaintext"])).status == 0)
        let inserted = try veinAsNobody(r, ["query", "\(folder)/s.vein", #"insert Post(title: "a", content: "c")"#] + key)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        return key
    }

    func files(_ r: VeinRunner, _ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: r.path(folder)).sorted()
    }

    /// Reading a 0444 store used to leave a 0444 -wal and -shm beside it, after which every command
    /// failed (exit 74) until they were deleted by hand.
    @Test func aStoreWithMode0444IsReadByEveryCommandAndLeavesNoFiles() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        _ = try store(r, in: "d", keyed: false)
        try chmod(r, "d/s.vein", 0o444)
        for command in [["info", "d/s.vein"], ["query", "d/s.vein", "Post"], ["verify", "d/s.vein"], ["schema", "d/s.vein"],
                        ["export", "d/s.vein", "-o", "d/out.json"], ["backup", "d/s.vein", "d/copy.vein"], ["query", "d/s.vein", "count Post"]] {
            let result = try veinAsNobody(r, command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        #expect(try files(r, "d") == ["copy.vein", "out.json", "s.vein"])
        #expect(try veinAsNobody(r, ["query", "d/s.vein", "count Post"]).stdout == "1\n")

        let write = try veinAsNobody(r, ["query", "d/s.vein", #"insert Post(title: "b", content: "c")"#])
        #expect(write.status == 74)
        #expect(write.stderr == "vein: error: d/s.vein is read-only: cannot write (mode 0444)\n"
            + "hint: commands that only read (info, export, backup, a query that reads) still work\n")
        #expect(try files(r, "d") == ["copy.vein", "out.json", "s.vein"])
    }

    /// In a directory nobody may write, SQLite cannot create -wal and -shm: the store could not be read.
    @Test(arguments: [false, true]) func aStoreInAReadOnlyDirectoryCanBeRead(keyed: Bool) throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let key = try store(r, in: "d", keyed: keyed)
        try chmod(r, "d", 0o555)
        defer { try? chmod(r, "d", 0o777) }
        for command in [["info", "d/s.vein"], ["query", "d/s.vein", "Post"], ["verify", "d/s.vein"], ["export", "d/s.vein", "-o", "out.json"],
                        ["backup", "d/s.vein", "copy.vein"]] + (keyed ? [["key", "status", "d/s.vein"]] : []) {
            let result = try veinAsNobody(r, command + key)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        let write = try veinAsNobody(r, ["query", "d/s.vein", "delete Post"] + key)
        #expect(write.status == 74)
        #expect(write.stderr.hasPrefix("vein: error: d/s.vein is read-only: cannot write (its directory d is not writable)\n"))
    }

    @Test func aStoreTheUserMayNotReadIsPermissionDenied() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        _ = try store(r, in: "d", keyed: false)
        try chmod(r, "d/s.vein", 0o000)
        let info = try veinAsNobody(r, ["info", "d/s.vein"])
        #expect(info.status == 74)
        #expect(info.stderr == "vein: error: cannot open d/s.vein: permission denied\n")

        try chmod(r, "d/s.vein", 0o644)
        try chmod(r, "d", 0o000)
        defer { try? chmod(r, "d", 0o777) }
        let hidden = try veinAsNobody(r, ["info", "d/s.vein"])
        #expect(hidden.status == 74)
        #expect(hidden.stderr == "vein: error: cannot open d/s.vein: permission denied\n")
    }

    @Test func aDirectoryIsNotAStore() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try FileManager.default.createDirectory(atPath: r.path("d.vein"), withIntermediateDirectories: true)
        let info = try r.vein(["info", "d.vein"])
        #expect(info.status == 66)
        #expect(info.stderr == "vein: error: cannot open d.vein: it is a directory\n")
    }

    /// -wal and -shm left with mode 0444 by an earlier vein (or another tool): reads work, and a write
    /// says which file stops it instead of "unable to open database file".
    @Test func leftoverReadOnlyWALFilesAreNamed() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        _ = try store(r, in: "d", keyed: false)
        for name in ["d/s.vein-wal", "d/s.vein-shm"] {
            #expect(try r.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/touch", name]).status == 0)
            try chmod(r, name, 0o444)
        }
        try chmod(r, "d/s.vein", 0o444)
        let read = try veinAsNobody(r, ["query", "d/s.vein", "count Post"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "1\n")

        try chmod(r, "d/s.vein", 0o644)
        let write = try veinAsNobody(r, ["query", "d/s.vein", "delete Post"])
        #expect(write.status == 74)
        #expect(write.stderr.hasPrefix("vein: error: d/s.vein is read-only: cannot write (d/s.vein-wal is not writable (mode 0444))\n"))
    }
}
