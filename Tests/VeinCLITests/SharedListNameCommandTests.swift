import Foundation
import Testing

/// `Folder.items` and `Tag.items`, both lists of `Item`, through the built binary: the store is created and
/// each list keeps its own order; a manifest whose derived names two parts would share is refused before
/// anything is written, in the manifest's words.
@Suite struct SharedListNameCommandTests {
    @Test func twoListsOfOneNameOverOneModel() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("files.json5", """
            { vein: 1, app: "t.files", version: "1.0.0", models: {
                Folder: { fields: { name: "string" }, relationships: { items: { to: "Item", many: true, inverse: "folder" } } },
                Tag: { fields: { name: "string" }, relationships: { items: { to: "Item", many: true, inverse: "tag" } } },
                Item: { fields: { title: "string" }, relationships: { folder: { to: "Folder" }, tag: { to: "Tag" } } } } }
            """)
        let created = try r.vein(["create", "f.vein", "--schema", "files.json5", "--plaintext"])
        #expect(created.status == 0, "\(created.stderr)")
        func insert(_ statement: String) throws -> String {
            let result = try r.vein(["query", "f.vein", statement])
            try #require(result.status == 0, "\(result.stderr)")
            return String(result.stdout.split(separator: " ").last!.dropLast())
        }
        let folder = try insert(#"insert Folder(name: "f")"#), tag = try insert(#"insert Tag(name: "t")"#)
        for title in ["a", "b", "c"] { _ = try insert(#"insert Item(title: "\#(title)", folder: #id("\#(folder)"))"#) }
        for title in ["z", "y"] { _ = try insert(#"insert Item(title: "\#(title)", tag: #id("\#(tag)"), folder: #id("\#(folder)"))"#) }
        let titles = { (owner: String) throws -> [String] in
            try r.vein(["query", "f.vein", owner, "--format", "csv"]).stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[1]) }
        }
        #expect(try titles(#"Folder(#id("\#(folder)")).items"#) == ["a", "b", "c", "z", "y"])
        #expect(try titles(#"Tag(#id("\#(tag)")).items"#) == ["z", "y"])
        #expect(try r.vein(["verify", "f.vein"]).status == 0)
    }

    @Test func aDerivedNameTwoPartsWouldShareIsRefusedAndNothingIsCreated() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("bad.json5", """
            { vein: 1, app: "t.bad", version: "1.0.0", models: {
                A: { relationships: { b_c: { to: "T", many: true } } },
                A_b: { relationships: { c: { to: "T", many: true } } },
                T: { fields: { n: "int" } } } }
            """)
        let result = try r.vein(["create", "bad.vein", "--schema", "bad.json5", "--plaintext"])
        #expect(result.status == 65)
        #expect(result.stderr == """
            vein: error: bad.json5: models.A_b: A.b_c and A_b.c would both be stored as table "_vein_link_A_b_c"; rename one of them

            """)
        #expect(!r.exists("bad.vein"))
    }
}
