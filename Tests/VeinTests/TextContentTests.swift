import Foundation
import Testing
@testable import Vein

/// A text file named where a store is expected is told from a store by its first bytes: an encrypted
/// store is random bytes, a plaintext one starts with SQLite's binary header.
@Suite struct TextContentTests {
    @Test func jsonTextAndStoresAreToldApart() throws {
        #expect(TextContent.of(Array(#"  {"vein": 1}"#.utf8)) == .json)
        #expect(TextContent.of(Array("\n[1, 2]".utf8)) == .json)
        #expect(TextContent.of(Array("// a manifest\n// of a blog\n{ vein: 1 }".utf8)) == .json)
        #expect(TextContent.of(Array("insert Post(title: \"a\")\n".utf8)) == .text)
        #expect(TextContent.of(Array("日本語のメモ".utf8)) == .text)
        #expect(TextContent.of(Array("SQLite format 3\0".utf8)) == nil)
        #expect(TextContent.of([]) == nil)
        #expect(TextContent.of([0x7B, 0xFF, 0x7D]) == nil)
        // A character cut by the end of a sample is text; the same bytes as a whole file are not.
        let cut = Array("{ \"title\": \"日".utf8).dropLast()
        #expect(TextContent.of(Array(cut), cut: true) == .json)
        #expect(TextContent.of(Array(cut)) == nil)
    }

    /// Every page of an encrypted store, the first included, is random to anyone without the key.
    @Test func anEncryptedStoreIsNotText() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let path = dir.path("s.vein")
        _ = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .encrypted(StoreTests.rawKeyOptions))
        #expect(TextContent.of(file: path) == nil)
        #expect(Store.mightBeStore(path))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: dir.path("d.json")))
        #expect(!Store.mightBeStore(dir.path("d.json")) && !Store.mightBeStore(dir.path("none")) && !Store.mightBeStore(dir.path))
    }

    /// Refused for what it is before a key is looked for: with no key source at all, the error is not "no key".
    @Test func openingATextFileSaysWhatItIs() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try Data(#"{"vein":1,"models":{}}"#.utf8).write(to: URL(fileURLWithPath: dir.path("data.json")))
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: dir.path("notes.txt")))
        #expect(throws: StoreError.textFile(dir.path("data.json"), json: true)) { try Store.open(dir.path("data.json"), keys: StoreTests.keys()) }
        #expect(throws: StoreError.textFile(dir.path("notes.txt"), json: false)) { try Store.open(dir.path("notes.txt"), keys: StoreTests.keys()) }
        #expect(StoreError.textFile("data.json", json: true).description == "data.json is a JSON file, not a store")
    }
}
