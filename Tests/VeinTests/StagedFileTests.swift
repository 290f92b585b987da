import Foundation
import Testing
@testable import Vein

/// `StagedFile`: the one way Vein writes a file that must appear whole.
@Suite struct StagedFileTests {
    func attributes(_ path: String) -> (type: mode_t, mode: mode_t, uid: uid_t, gid: gid_t) {
        var info = stat()
        _ = lstat(path, &info)
        return (info.st_mode & S_IFMT, info.st_mode & 0o7777, info.st_uid, info.st_gid)
    }

    @Test func createLinksANewFileAndNeverReplacesOne() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let made = try StagedFile(target: dir.path("a"), tag: "writing", mode: 0o600, placement: .create)
        try made.write(Array("new".utf8))
        try made.commit()
        #expect(try dir.contents() == ["a"], "the temporary name is gone")
        #expect(String(decoding: try dir.bytes("a"), as: UTF8.self) == "new")
        #expect(attributes(dir.path("a")).mode == 0o600)

        let second = try StagedFile(target: dir.path("a"), tag: "writing", mode: 0o600, placement: .create)
        try second.write(Array("other".utf8))
        #expect(throws: FileError.alreadyExists(dir.path("a"))) { try second.place() }
        second.discard()
        #expect(try dir.contents() == ["a"])
        #expect(String(decoding: try dir.bytes("a"), as: UTF8.self) == "new")
    }

    @Test func replaceKeepsModeOwnerAndGroup() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("shared", "old", mode: 0o640)
        try #require(chown(dir.path("shared"), 1234, 5678) == 0, "tests run as root")
        let staged = try StagedFile(target: dir.path("shared"), tag: "writing", mode: 0o600, placement: .replace)
        try staged.write(Array("new".utf8))
        try staged.commit()
        let after = attributes(dir.path("shared"))
        #expect(after.mode == 0o640 && after.uid == 1234 && after.gid == 5678)
        #expect(String(decoding: try dir.bytes("shared"), as: UTF8.self) == "new")

        // A key file keeps 0600 whatever it replaces, and its owner and group.
        try dir.write("key", "old", mode: 0o644)
        try #require(chown(dir.path("key"), 1234, 5678) == 0)
        let key = try StagedFile(target: dir.path("key"), tag: "writing", mode: 0o600, keepsMode: false, placement: .replace)
        try key.commit()
        let keyAttributes = attributes(dir.path("key"))
        #expect(keyAttributes.mode == 0o600 && keyAttributes.uid == 1234 && keyAttributes.gid == 5678)
    }

    @Test func neverRenamesOverWhatIsNotARegularFile() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try #require(mkfifo(dir.path("fifo"), 0o600) == 0)
        let staged = try StagedFile(target: dir.path("fifo"), tag: "writing", mode: 0o600, placement: .replace)
        #expect(throws: FileError.cannotWrite(dir.path("fifo"), reason: "it is not a regular file")) { try staged.place() }
        staged.discard()
        #expect(attributes(dir.path("fifo")).type == S_IFIFO)
        #expect(try dir.contents() == ["fifo"])
    }

    /// `write(to:)` writes into a device or FIFO, replaces a regular file, and follows a symbolic link to
    /// the file it names (the link stays).
    @Test func writeToPicksWriteIntoOrReplace() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let written = try StagedFile.write(to: "/dev/null", mode: 0o600) { try FileSystem.writeAll($0, Array("x".utf8), path: "/dev/null"); return 1 }
        #expect(written == 1)
        #expect(attributes("/dev/null").type == S_IFCHR)

        try dir.write("real", "old", mode: 0o644)
        try #require(symlink(dir.path("real"), dir.path("link")) == 0)
        try StagedFile.write(to: dir.path("link"), mode: 0o600) { try FileSystem.writeAll($0, Array("new".utf8), path: "link") }
        #expect(attributes(dir.path("link")).type == S_IFLNK)
        #expect(String(decoding: try dir.bytes("real"), as: UTF8.self) == "new")
        #expect(attributes(dir.path("real")).mode == 0o644)

        try StagedFile.write(to: dir.path("fresh"), mode: 0o600) { try FileSystem.writeAll($0, Array("n".utf8), path: "fresh") }
        #expect(attributes(dir.path("fresh")).mode == 0o600)
        #expect(try dir.contents() == ["fresh", "link", "real"])

        // A failure in the body leaves the old file and no temporary.
        struct Stop: Error {}
        #expect(throws: Stop.self) { try StagedFile.write(to: dir.path("real"), mode: 0o600) { _ in throw Stop() } }
        #expect(String(decoding: try dir.bytes("real"), as: UTF8.self) == "new")
        #expect(try dir.contents() == ["fresh", "link", "real"])
    }

    /// A key file that is a symbolic link stays one; the key goes into the file it names, 0600.
    @Test func keyFileReplaceFollowsASymbolicLink() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("real.key", Fixtures.hexKey(1) + "\n", mode: 0o600)
        try #require(symlink(dir.path("real.key"), dir.path("k")) == 0)
        try KeyFile.replace(dir.path("k"), key: try CipherKey(text: Fixtures.hexKey(2)))
        #expect(attributes(dir.path("k")).type == S_IFLNK)
        #expect(try KeyFile.read(dir.path("k")) == CipherKey(text: Fixtures.hexKey(2)))
        #expect(try dir.contents() == ["k", "real.key"])
    }

    /// A database file whose WAL still holds frames is not whole on its own: it is never put in place.
    @Test func aFileWithAnUnmergedWALIsNotPlaced() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let staged = try StagedFile(target: dir.path("s.vein"), tag: "creating", mode: 0o644, placement: .create)
        try Data("frames".utf8).write(to: URL(fileURLWithPath: staged.temporary + "-wal"))
        #expect(throws: FileError.writeFailed(dir.path("s.vein"), reason: "the new file's wal was not merged into it")) { try staged.place() }
        staged.discard()
        #expect(try dir.contents() == [])
    }

    @Test func removeLeftoversTakesOnlyWhatNobodyIsWriting() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let live = try StagedFile(target: dir.path("k"), tag: "writing", mode: 0o600, placement: .replace)
        let dead = "01J0000000000000000000DEAD", old = "01J000000000000000000000AB"
        for name in [".k.writing-\(dead)", ".k.writing-\(dead)-wal", "k.writing-\(old)", ".other.writing-\(dead)"] { try dir.write(name, "x") }
        StagedFile.removeLeftovers(of: dir.path("k"), tag: "writing")
        let liveName = URL(fileURLWithPath: live.temporary).lastPathComponent
        #expect(try dir.contents() == [".other.writing-\(dead)", liveName].sorted())
        live.discard()
    }

    /// Another process's cleanup can take a new temporary in the moment before its writer locks it (it looks
    /// like a dead one then): the writer notices and makes it again under a new name instead of writing into
    /// a file that no longer has one.
    @Test func aTemporaryRemovedBeforeItIsLockedIsMadeAgain() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        var removed: [String] = []
        let staged = try StagedFile(target: dir.path("a"), tag: "writing", mode: 0o600, placement: .create) { temporary in
            // What removeLeftovers in another process does to a file nobody has locked.
            if removed.isEmpty, unlink(temporary) == 0 { removed.append(temporary) }
        }
        try #require(removed.count == 1)
        #expect(staged.temporary != removed[0])
        try staged.write(Array("new".utf8))
        try staged.commit()
        #expect(try dir.contents() == ["a"])
        #expect(String(decoding: try dir.bytes("a"), as: UTF8.self) == "new")
    }

    /// On a full disk writing fails as a write failure (exit 74 in the CLI), and nothing stays behind.
    @Test func aFullDiskIsAWriteFailureAndLeavesNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try #require(mount(fileSystem: "tmpfs", at: dir.path, size: "64k"))
        defer { _ = umount(dir.path) }
        let staged = try StagedFile(target: dir.path("big"), tag: "writing", mode: 0o600, placement: .create)
        #expect(throws: FileError.writeFailed(dir.path("big"), reason: "No space left on device")) {
            try staged.write([UInt8](repeating: 7, count: 256 * 1024))
        }
        staged.discard()
        #expect(try dir.contents() == [])
    }

    /// A new store whose checkpoint fails (the WAL fits, the file does not) is never linked into place: the
    /// checkpoint's answer is checked.
    @Test func createOnAFullDiskLeavesNoStore() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try #require(mount(fileSystem: "tmpfs", at: dir.path, size: "1m"))
        defer { _ = umount(dir.path) }
        var info = statvfs()
        try #require(statvfs(dir.path, &info) == 0)
        try Data(count: Int(info.f_bavail) * Int(info.f_frsize) - 96 * 1024).write(to: URL(fileURLWithPath: dir.path("filler")))
        #expect(throws: DatabaseError.self) {
            try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .plaintext)
        }
        #expect(try dir.contents() == ["filler"])
    }

    func mount(fileSystem: String, at path: String, size: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/mount")
        process.arguments = ["-t", fileSystem, "-o", "size=\(size)", fileSystem, path]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
