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
            + [".s.vein.rotating-01J0000000000000000000GONE-journal", ".s.vein.rotating-01J0000000000000000000GONE-wal"]
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
