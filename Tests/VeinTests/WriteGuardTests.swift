import Foundation
import Testing
@testable import Vein

/// `WriteGuard`: no path a command writes may lead to the store it works on, the files SQLite keeps beside
/// it, or its key files, however the path is spelt; an existing file that may hold something that cannot be
/// made again is replaced only when forced.
@Suite struct WriteGuardTests {
    /// A directory holding the encrypted store s.vein (key file s.key), opened with its key file.
    struct Fixture {
        let dir: TempDir
        let store: Store

        init() throws {
            dir = try TempDir()
            let keys = StoreTests.keys(keyFile: dir.path("s.key"))
            _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(keys))
            store = try Store.open(dir.path("s.vein"), keys: keys)
        }

        var guarding: WriteGuard { WriteGuard(protecting: store, keyFile: dir.path("s.key")) }

        func link(_ name: String, to target: String, hard: Bool = false) throws {
            let made = hard ? Foundation.link(dir.path(target), dir.path(name)) : symlink(target, dir.path(name))
            try #require(made == 0)
        }

        func store(_ what: String, consequence: String = "writing over it would destroy the store") -> (String, String) {
            (what + " " + dir.path("s.vein"), consequence)
        }
    }

    func refusal(_ guarding: WriteGuard, _ path: String, _ kind: WriteGuard.Kind = .file, force: Bool = false) -> WriteGuardError? {
        do {
            try guarding.check(path, writing: kind, force: force)
            return nil
        } catch { return error }
    }

    @Test func theStoreUnderEveryNameIsRefused() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        try f.link("symbolic", to: "s.vein")
        try f.link("chain", to: "symbolic")
        try f.link("hard", to: "s.vein", hard: true)
        try FileManager.default.createDirectory(atPath: f.dir.path("sub"), withIntermediateDirectories: false)
        let store = "the store \(f.dir.path("s.vein"))"
        for name in ["s.vein", "symbolic", "chain", "hard", "sub/../s.vein", "./s.vein"] {
            let path = f.dir.path(name)
            #expect(refusal(f.guarding, path) == .wouldDestroy(path: path, companion: nil, what: store,
                                                               consequence: "writing over it would destroy the store"), "\(name)")
            // Forcing does not make it a file one may replace.
            #expect(refusal(f.guarding, path, force: true) != nil, "\(name)")
        }
    }

    @Test func filesSQLiteKeepsBesideTheStoreAreRefusedWhetherOrNotTheyExist() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let store = f.dir.path("s.vein")
        // Between sessions there is no -wal: its name is still the store's.
        try f.store.database.close()
        #expect(!FileSystem.fileExists(store + "-wal"))
        #expect(refusal(f.guarding, store + "-wal") == .wouldDestroy(path: store + "-wal", companion: nil, what: "the write-ahead log of the store \(store)",
                                                                     consequence: "writing over it would damage the store"))
        // A dangling link to it leads there too.
        try f.link("to-wal", to: "s.vein-wal")
        #expect(refusal(f.guarding, f.dir.path("to-wal")) != nil)
        // An existing one, by a hard link.
        FileManager.default.createFile(atPath: store + "-journal", contents: Data("journal".utf8))
        try f.link("journal-link", to: "s.vein-journal", hard: true)
        #expect(refusal(f.guarding, f.dir.path("journal-link")) == .wouldDestroy(
            path: f.dir.path("journal-link"), companion: nil, what: "the rollback journal of the store \(store)",
            consequence: "writing over it would damage the store"))
        #expect(refusal(f.guarding, store + "-shm") != nil)
        // Another file in the same directory is fine.
        #expect(refusal(f.guarding, f.dir.path("s.vein.json")) == nil)
        #expect(refusal(f.guarding, f.dir.path("s.vein-wal2")) == nil)
    }

    /// `x/lnk/../s.vein-wal`, where `lnk` is a symbolic link to a directory beside the store: the kernel takes
    /// `..` from where `lnk` leads, so the path names the store's -wal. Before: the path was read as text
    /// (`x/s.vein-wal`) and an export landed on the store's journal.
    @Test func dotDotAfterALinkedDirectoryLeadsWhereTheKernelTakesIt() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        try f.store.database.close()
        try Self.linkedDirectory(in: f.dir)
        let store = f.dir.path("s.vein")
        // Relative, as a user types it (Foundation kept an absolute path as written, and dropped `lnk/..` from
        // a relative one when it made it absolute).
        let linked = String(repeating: "../", count: FileManager.default.currentDirectoryPath.split(separator: "/").count)
            + f.dir.path.dropFirst() + "/x/lnk/../"
        for suffix in ["-wal", "-journal"] {
            #expect(!FileSystem.fileExists(store + suffix))
            #expect(refusal(f.guarding, linked + "s.vein" + suffix) != nil, "\(suffix)")
        }
        #expect(refusal(f.guarding, linked + "s.vein") != nil)
        #expect(refusal(f.guarding, linked + "other.json") == nil)
        // A new file's real path, where a new store is linked into place.
        #expect(try FileSystem.realPath(linked + "n.vein") == (try FileSystem.realPath(f.dir.path)) + "/n.vein")
        _ = try StoreCreator.create(at: linked + "n.vein", manifest: try Fixtures.blogManifest(), protection: .plaintext)
        #expect(FileSystem.fileExists(f.dir.path("n.vein")) && !FileSystem.fileExists(f.dir.path("x/n.vein")))
    }

    /// `x/lnk`, a symbolic link to the directory `sub` beside `x`: `x/lnk/..` is the directory itself.
    static func linkedDirectory(in dir: TempDir) throws {
        for name in ["x", "sub"] { try FileManager.default.createDirectory(atPath: dir.path(name), withIntermediateDirectories: false) }
        try #require(symlink("../sub", dir.path("x/lnk")) == 0)
    }

    @Test func splitPathKeepsTheDirectoryAsTheKernelReadsIt() {
        let cwd = FileManager.default.currentDirectoryPath
        #expect(FileSystem.splitPath("/a/lnk/../b") == ("/a/lnk/..", "b"))
        #expect(FileSystem.splitPath("/a/b/") == ("/a", "b"))
        #expect(FileSystem.splitPath("/b") == ("/", "b"))
        #expect(FileSystem.splitPath("b") == (cwd, "b"))
        #expect(FileSystem.splitPath("./a/./b") == (cwd + "/./a/.", "b"))
    }

    @Test func theKeyFileAndItsPendingKeyAreRefused() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        try f.link("key-link", to: "s.key", hard: true)
        let what = "the key file of the store \(f.dir.path("s.vein"))"
        let consequence = "writing over it would lose the key that opens the store"
        #expect(refusal(f.guarding, f.dir.path("key-link"), force: true)
                == .wouldDestroy(path: f.dir.path("key-link"), companion: nil, what: what, consequence: consequence))
        #expect(refusal(f.guarding, f.dir.path("s.key.pending"), force: true)
                == .wouldDestroy(path: f.dir.path("s.key.pending"), companion: nil,
                                 what: "the pending key file of the store \(f.dir.path("s.vein"))", consequence: consequence))
    }

    @Test func aKeyFileTheStoreDidNotNeedIsReplacedOnlyWhenForced() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let store = try dir.plaintextStore("p.vein", manifest: try Fixtures.blogManifest())
        try dir.write("given.key", "a passphrase, not hex")
        let guarding = WriteGuard(protecting: store, keyFile: dir.path("given.key"))
        #expect(refusal(guarding, dir.path("given.key")) == .mayHoldData(path: dir.path("given.key"), reason: "it is a key file given to this command"))
        #expect(refusal(guarding, dir.path("given.key"), force: true) == nil)
        // Not there: nothing to lose.
        #expect(refusal(guarding, dir.path("given.key.pending")) == nil)
    }

    @Test func aNewStoreAndTheFilesSQLiteWritesBesideItLeadNowhereProtected() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let dest = f.dir.path("copy.vein")
        #expect(refusal(f.guarding, dest, .database) == nil)
        try f.link("copy.vein-wal", to: "s.vein")
        #expect(refusal(f.guarding, dest, .database) == .wouldDestroy(
            path: dest, companion: dest + "-wal", what: "the store \(f.dir.path("s.vein"))", consequence: "writing over it would destroy the store"))
        // Its key file may not take one of its names.
        var keyGuard = WriteGuard()
        keyGuard.protectDatabase(f.dir.path("n.vein"), name: "n.vein", new: true)
        #expect(refusal(keyGuard, f.dir.path("n.vein-wal")) == .wouldDestroy(
            path: f.dir.path("n.vein-wal"), companion: nil, what: "the write-ahead log of the new store n.vein", consequence: "SQLite would write over it"))
        #expect(refusal(keyGuard, f.dir.path("n.vein")) != nil)
        #expect(refusal(keyGuard, f.dir.path("n.key")) == nil)
    }

    @Test func existingFilesThatMayHoldDataNeedForce() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let guarding = WriteGuard()
        func reason(_ name: String) -> String? {
            if case .mayHoldData(_, let reason) = refusal(guarding, dir.path(name)) { return reason }
            return nil
        }
        var random = SplitMix64(seed: 18)
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: dir.path("encrypted")))
        try Data("SQLite format 3\0".utf8 + [1, 2, 3]).write(to: URL(fileURLWithPath: dir.path("plain.db")))
        try dir.write("raw.key", Fixtures.hexKey(7) + "\n")
        try Data("text\0more".utf8).write(to: URL(fileURLWithPath: dir.path("nul")))
        try dir.write("notes.json", "{\"a\": \"日本語\"}\n")
        try dir.write("empty", "")
        // A character cut by the sample's end is not binary.
        try Data([UInt8](repeating: 0x61, count: ExistingContent.sampleSize - 1) + Array("語".utf8)).write(to: URL(fileURLWithPath: dir.path("long.txt")))
        try #require(mkfifo(dir.path("fifo"), 0o600) == 0)

        #expect(reason("encrypted") == "it holds binary data, not UTF-8 text (an encrypted store looks like this)")
        #expect(reason("plain.db") == "it is a SQLite database")
        #expect(reason("raw.key") == "it holds a raw key (64 hex digits)")
        #expect(reason("nul") == "it holds binary data, not UTF-8 text (an encrypted store looks like this)")
        for name in ["notes.json", "empty", "long.txt", "fifo", "missing"] {
            #expect(refusal(guarding, dir.path(name)) == nil, "\(name)")
        }
        for name in ["encrypted", "plain.db", "raw.key"] {
            #expect(refusal(guarding, dir.path(name), force: true) == nil, "\(name)")
        }
    }

    @Test func aDescriptorThatWritesIntoTheStoreIsRefused() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let intoStore = open(f.dir.path("s.vein"), O_WRONLY | O_APPEND)
        let elsewhere = open(f.dir.path("out.json"), O_WRONLY | O_CREAT, 0o600)
        defer { close(intoStore); close(elsewhere) }
        #expect(throws: WriteGuardError.wouldDestroy(path: "standard output", companion: nil, what: "the store \(f.dir.path("s.vein"))",
                                                     consequence: "writing over it would destroy the store")) {
            try f.guarding.check(descriptor: intoStore, name: "standard output")
        }
        try f.guarding.check(descriptor: elsewhere, name: "standard output")
    }

    @Test func requireWritableRefusesWhatCannotBeWrittenAndChangesNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("history", "count Post\n")
        try FileSystem.requireWritable(dir.path("history"))
        #expect(try dir.bytes("history") == Data("count Post\n".utf8))
        try FileSystem.requireWritable(dir.path("new"))
        #expect(!FileSystem.fileExists(dir.path("new")))
        #expect(throws: FileError.cannotWrite(dir.path, reason: "it is a directory")) { try FileSystem.requireWritable(dir.path) }
        #expect(throws: FileError.cannotWrite(dir.path("none/h"), reason: "directory \(dir.path("none")) does not exist")) {
            try FileSystem.requireWritable(dir.path("none/h"))
        }
        // A file not even root may write (the tests run as root, for whom a mode 0400 file is writable).
        let readOnly = "/proc/sys/kernel/osrelease"
        try #require(FileSystem.fileExists(readOnly))
        #expect(throws: FileError.cannotWrite(readOnly, reason: String(cString: strerror(EACCES)))) {
            try FileSystem.requireWritable(readOnly)
        }
    }

    // MARK: The engine's own writes

    @Test func aNewKeyFileNeverTakesTheNameOfTheStoresWriteAheadLog() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        // Before: the key went to n.vein-wal, and SQLite, opening n.vein, took that file for its log.
        for keyName in ["n.vein-wal", "n.vein-journal", "n.vein"] {
            let keys = StoreTests.keys(keyFile: dir.path(keyName))
            #expect(throws: WriteGuardError.self, "\(keyName)") {
                try StoreCreator.create(at: dir.path("n.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(keys))
            }
            #expect(try dir.contents() == [], "\(keyName)")
        }
    }

    /// A new store whose -wal or -journal is already there (left by a store moved away without it, say): SQLite
    /// would take it for the new store's own. Before: the store was created, and the first session replayed
    /// the other database's log into it (a table of the other database appeared).
    @Test func aNewStoreIsNeverMadeBesideALeftoverLogOrJournal() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        // A real write-ahead log holding a commit, taken while its database is open.
        let other = try Database(path: dir.path("other.db"), mode: .create, key: nil)
        try other.execute("PRAGMA journal_mode = WAL")
        try other.execute("PRAGMA wal_autocheckpoint = 0")
        try other.execute("CREATE TABLE foreign_data(x)")
        let log = try dir.bytes("other.db-wal")
        try other.close()
        let store = dir.path("n.vein")
        for (suffix, role) in [("-wal", "write-ahead log"), ("-journal", "rollback journal")] {
            try log.write(to: URL(fileURLWithPath: store + suffix))
            #expect(throws: WriteGuardError.leftover(path: store, companion: store + suffix, role: role)) {
                try StoreCreator.create(at: store, manifest: try Fixtures.blogManifest(), protection: .plaintext)
            }
            #expect(try dir.contents() == ["n.vein" + suffix, "other.db"], "nothing made, the leftover kept")
            #expect(try dir.bytes("n.vein" + suffix) == log)
            unlink(store + suffix)
        }
        // An empty one holds nothing to replay.
        try Data().write(to: URL(fileURLWithPath: store + "-wal"))
        _ = try StoreCreator.create(at: store, manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let created = try Database(path: store, key: nil)
        defer { try? created.close() }
        #expect(try created.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'foreign_data'")?.int64 == 0)
    }

    @Test func aCopyNeverLandsOnItsSourceOrItsKeyFile() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        try f.link("hard.vein", to: "s.vein", hard: true)
        let source = f.dir.path("s.vein")
        let before = try f.dir.bytes("s.vein")
        // Refused as the store itself, not merely as a file that exists.
        #expect(throws: WriteGuardError.wouldDestroy(path: f.dir.path("hard.vein"), companion: nil, what: "the store \(source)",
                                                     consequence: "writing over it would destroy the store")) {
            try StoreCopier.copy(f.store, to: f.dir.path("hard.vein"), protection: .plaintext)
        }
        try f.link("c.vein-journal", to: "s.key")
        #expect(throws: WriteGuardError.wouldDestroy(path: f.dir.path("c.vein"), companion: f.dir.path("c.vein-journal"),
                                                     what: "the key file of the store \(source)",
                                                     consequence: "writing over it would lose the key that opens the store")) {
            try StoreCopier.copy(f.store, to: f.dir.path("c.vein"), protection: .plaintext)
        }
        #expect(try f.dir.bytes("s.vein") == before)
        #expect(try f.dir.contents().filter { $0.contains("c.vein") } == ["c.vein-journal"], "no copy, no temporary")
    }

    @Test func aRotationNeverWritesItsKeyOverTheStore() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        try f.store.database.close()
        let keys = StoreTests.keys(keyFile: f.dir.path("s.key"))
        let before = try f.dir.bytes("s.vein")
        try f.link("elsewhere.pending", to: "s.vein")
        // Before: with force the store was renamed into place and then replaced by the key file.
        for (file, force) in [("s.vein", true), ("s.vein", false), ("s.vein-wal", false), ("elsewhere", true)] {
            #expect(throws: WriteGuardError.self, "\(file)") {
                try KeyRotation.rotate(f.dir.path("s.vein"), keys: keys, to: .keyFile(f.dir.path(file), force: force))
            }
            #expect(try f.dir.bytes("s.vein") == before, "\(file)")
            _ = try Store.open(f.dir.path("s.vein"), keys: keys)
        }
    }
}
