import Foundation
import Testing
@testable import Vein

/// What a killed process leaves beside a store or a key file (temporaries of every kind, and SQLite
/// journals whose file is gone) is removed by the next open; a temporary still being written stays.
@Suite struct LeftoverTests {
    static let dead = "01J0000000000000000000DEAD"

    @Test func openingAStoreRemovesWhatDeadProcessesLeftAndKeepsLiveTemporaries() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let live = try StagedFile(target: dir.path("s.vein"), tag: "rotating", mode: 0o600, placement: .replace)
        try Data("journal".utf8).write(to: URL(fileURLWithPath: live.temporary + "-journal"))
        let leftovers = ["rotating", "creating", "writing"].flatMap { [".s.vein.\($0)-\(Self.dead)", ".s.vein.\($0)-\(Self.dead)-journal"] }
            + [".s.vein.rotating-01J0000000000000000000G0NE-journal", ".s.vein.rotating-01J0000000000000000000G0NE-wal"]
        for name in leftovers { try dir.write(name, "x") }
        // Not temporaries of this store: another store's, and a name that only looks alike.
        let others = [".t.vein.rotating-\(Self.dead)", ".s.vein.notes-\(Self.dead)", "s.vein.txt"]
        for name in others { try dir.write(name, "x") }

        _ = try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil), mode: .readOnly)
        let liveName = URL(fileURLWithPath: live.temporary).lastPathComponent
        #expect(try dir.contents() == (["s.vein", liveName, liveName + "-journal"] + others).sorted())
        live.discard()
    }

    /// A new store (a backup under tonight's name) removes what a create or backup killed under another name
    /// left in its directory; names that are not Vein's temporaries stay.
    @Test func creatingAStoreRemovesDeadTemporariesOfOtherStoresInItsDirectory() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let dead = [".blog-2026-01-30.vein.creating-\(Self.dead)", ".blog-2026-01-30.vein.creating-\(Self.dead)-journal"]
        let others = [".notes.creating-draft", "blog.vein.creating-\(Self.dead).txt"]
        for name in dead + others { try dir.write(name, "x") }
        _ = try StoreCreator.create(at: dir.path("blog-2026-01-31.vein"), manifest: try Fixtures.blogManifest(), protection: .plaintext)
        #expect(try dir.contents() == (["blog-2026-01-31.vein"] + others).sorted())
    }

    /// Only Vein's own names (`.NAME.TAG-ULID`, or `NAME.TAG-ULID` as older versions wrote them) are
    /// temporaries: a user's file that merely starts like one stays, and so does its "journal".
    @Test func aUsersFileNamedLikeATemporaryStays() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let users = ["s.vein.writing-notes", ".s.vein.scratch-copy", ".s.vein.rotating-\(Self.dead).txt", "s.vein.creating-backup",
                     ".s.vein.writing-draft-journal", ".s.vein.rotating-\(Self.dead)x-wal"]
        for name in users { try dir.write(name, "mine") }
        try dir.write("s.vein.writing-\(Self.dead)", "x")  // an older version's leftover
        _ = try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil), mode: .readOnly)
        #expect(try dir.contents() == (["s.vein"] + users).sorted())
    }

    /// A name of the right form that is not a regular file of this user's (a FIFO, whose open would block;
    /// a symbolic link; another user's file or journal) is never opened for its lock nor removed.
    @Test func aFIFOALinkOrAnotherUsersFileStays() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: try Fixtures.blogManifest(), protection: .plaintext)
        let fifo = ".s.vein.rotating-\(Self.dead)", link = ".s.vein.scratch-\(Self.dead)"
        let others = [".s.vein.writing-\(Self.dead)", ".s.vein.creating-\(Self.dead)-journal"]
        try #require(mkfifo(dir.path(fifo), 0o600) == 0)
        try dir.write("target", "mine")
        try #require(symlink(dir.path("target"), dir.path(link)) == 0)
        for name in others {
            try dir.write(name, "theirs")
            try #require(chown(dir.path(name), 1234, 1234) == 0, "tests run as root")
        }

        // On a thread of its own: an open of the FIFO would wait for a writer, and is given one after a while.
        let finished = DispatchSemaphore(value: 0)
        Thread { StagedFile.removeLeftovers(of: dir.path("s.vein")); finished.signal() }.start()
        if finished.wait(timeout: .now() + 10) == .timedOut {
            Issue.record("the cleanup blocked opening a FIFO")
            let writer = open(dir.path(fifo), O_WRONLY | O_NONBLOCK)
            finished.wait()
            if writer >= 0 { close(writer) }
        }
        #expect(try dir.contents() == (["s.vein", "target", fifo, link] + others).sorted())
    }

    @Test func readingAKeyFileRemovesDeadTemporariesOfItAndOfItsPendingKey() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("k", KeyTests.hex + "\n")
        let live = try StagedFile(target: dir.path("k.pending"), tag: "writing", mode: 0o600, placement: .replace)
        for name in [".k.writing-\(Self.dead)", ".k.pending.writing-\(Self.dead)"] { try dir.write(name, KeyTests.hex) }
        _ = try KeyOptions(keyFile: dir.path("k"), environment: [:], keyring: nil).explicitKey()
        #expect(try dir.contents() == ["k", URL(fileURLWithPath: live.temporary).lastPathComponent].sorted())
        live.discard()
    }
}
