import Foundation
import Testing
@testable import Vein

/// A migration's `map` stores text as every other write does (NFC), whether SQL computes it or memory
/// does: an NFD literal, and a concatenation whose seam composes (`"Cafe" + "\u{301}"` is "Café").
@Suite struct MapNormalFormTests {
    @Test func mappedTextIsStoredInNFC() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let v1 = #"{ vein: 1, app: "t", version: "1.0.0", models: { Post: { fields: { title: "string" } } } }"#
        let v2 = #"{ vein: 1, app: "t", version: "1.1.0", models: { Post: { fields: { title: "string", a: "string", b: "string", c: "string" } } } }"#
        let path = dir.path("m.vein")
        _ = try StoreCreator.create(at: path, manifest: try ManifestParser.parse(v1, file: "v1"), protection: .plaintext)
        let context = ObjectContext(store: try Store.open(path, keys: KeyOptions(keyring: nil)))
        _ = try context.insert("Post", ["title": .string("Cafe")])
        try context.save()
        let plan = try PlanParser.parse(#"""
            { vein: 1, app: "t", schemas: [\#(v1), \#(v2)], stages: [{ from: "1.0.0", to: "1.1.0", steps: [
              { map: { model: "Post", set: { a: "\"Cafe\\u{301}\"", b: "title + \"\\u{301}\"", c: "title + \"!\"" } } }] }] }
            """#, file: "plan.json5")
        let store = try Store.open(path, keys: KeyOptions(keyring: nil))
        _ = try Migrator(plan: plan).run(on: store, acceptChangedPlan: false)
        let row = try #require(try Store.open(path, keys: KeyOptions(keyring: nil)).database.rows("SELECT a, b, c FROM Post").first)
        #expect(row.map { Array(($0.string ?? "").utf8) } == [Array("Caf\u{e9}".utf8), Array("Caf\u{e9}".utf8), Array("Cafe!".utf8)])
    }
}
