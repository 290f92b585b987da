import Foundation
import Testing
@testable import Vein

/// Two models with a list of the same name over one model (`Folder.items` and `Tag.items`, both of `Item`),
/// as SwiftData allows: each list keeps its own position column on `Item` (docs/store-format.md), and a
/// derived name two parts of a schema would share is refused when the manifest is read.
@Suite struct SharedListNameTests {
    static func manifest(version: String = "1.0.0", withTags: Bool = true) -> String {
        schema(version, """
            Folder: { fields: { name: "string" }, relationships: { items: { to: "Item", many: true, inverse: "folder" } } },
            \(withTags ? #"Tag: { fields: { name: "string" }, relationships: { items: { to: "Item", many: true, inverse: "tag" } } },"# : "")
            Item: { fields: { title: "string" },
                    relationships: { folder: { to: "Folder", inverse: "items" }\(withTags ? #", tag: { to: "Tag", inverse: "items" }"# : "") } }
            """)
    }

    @Test func eachListKeepsItsOwnPositionColumn() throws {
        let manifest = try ManifestParser.parse(Self.manifest(), file: "m")
        let positions = RelationshipStorage.all(in: manifest).map { "\($0.model).\($0.name): \($0.positionColumn ?? "-")" }
        #expect(positions == [
            "Folder.items: _vein_pos_Folder_items",
            "Tag.items: _vein_pos_Tag_items",
            "Item.folder: _vein_pos_Folder_items",
            "Item.tag: _vein_pos_Tag_items",
        ])
        // One list of that name keeps the name every existing store has.
        let single = try ManifestParser.parse(Self.manifest(withTags: false), file: "m")
        #expect(RelationshipStorage.all(in: single).map { $0.positionColumn ?? "-" } == ["_vein_pos_items", "_vein_pos_items"])
    }

    /// Before the position columns were told apart, `vein create` failed here with "duplicate column name".
    @Test func bothListsKeepTheirOrderThroughSaveExportAndImport() throws {
        let f = try MigrationFixture(Self.manifest())
        defer { f.dir.cleanUp() }
        let context = ObjectContext(store: try f.open())
        let folder = try context.insert("Folder", ["name": .string("f")])
        let tag = try context.insert("Tag", ["name": .string("t")])
        let items = try ["a", "b", "c", "d"].map { try context.insert("Item", ["title": .string($0)]) }
        try folder.set("items", .array([0, 1, 2, 3].map { .string(items[$0].id) }))
        try tag.set("items", .array([3, 1, 0, 2].map { .string(items[$0].id) }))
        try context.save()

        func titles(_ model: String, _ id: String, in store: Store) throws -> [String] {
            let reader = ObjectContext(store: store)
            return try reader.object(model, id: id)!.related("items").map { try $0["title"].stringValue ?? "" }
        }
        let store = try f.open()
        #expect(try titles("Folder", folder.id, in: store) == ["a", "b", "c", "d"])
        #expect(try titles("Tag", tag.id, in: store) == ["d", "b", "a", "c"])
        #expect(try StoreVerifier.verify(store).isClean)

        let interchange = try InterchangeFixture()
        defer { interchange.dir.cleanUp() }
        let exported = try interchange.export(store)
        let copyPath = interchange.dir.path("copy.vein")
        _ = try StoreCreator.create(at: copyPath, manifest: try ManifestParser.parse(Self.manifest(), file: "m"), protection: .plaintext)
        let copy = try Store.open(copyPath, keys: KeyOptions(keyring: nil))
        try interchange.importData(exported, into: copy)
        #expect(try titles("Tag", tag.id, in: copy) == ["d", "b", "a", "c"])
        #expect(try interchange.export(copy) == exported)
    }

    /// A store made when `Item` was in one list of that name has `_vein_pos_items`; adding the second
    /// list renames that column, and the stage carries the first list's order into the new one.
    @Test func addingTheSecondListKeepsTheFirstListsOrder() throws {
        let f = try MigrationFixture(Self.manifest(withTags: false))
        defer { f.dir.cleanUp() }
        let context = ObjectContext(store: try f.open())
        let folder = try context.insert("Folder", ["name": .string("f")])
        let items = try ["a", "b", "c"].map { try context.insert("Item", ["title": .string($0)]) }
        try folder.set("items", .array([2, 0, 1].map { .string(items[$0].id) }))
        try context.save()

        _ = try f.run(try MigrationFixture.plan([Self.manifest(withTags: false), Self.manifest(version: "1.1.0")], [""]))
        let store = try f.open()
        let columns = try store.database.rows(#"PRAGMA table_info("Item")"#).compactMap { $0[1].string }
        #expect(columns == ["_id", "title", "folder", "_vein_pos_Folder_items", "tag", "_vein_pos_Tag_items"])
        let reader = ObjectContext(store: store)
        #expect(try reader.object("Folder", id: folder.id)!.related("items").map { try $0["title"].stringValue ?? "" } == ["c", "a", "b"])
        #expect(try StoreVerifier.verify(store).isClean)
    }

    // MARK: Names two parts would share

    private func issues(_ models: String) -> [String] {
        do {
            _ = try ManifestParser.parse(schema("1.0.0", models), file: "m.json5")
            Issue.record("the manifest was accepted")
            return []
        } catch {
            return error.lines
        }
    }

    @Test func aPositionColumnTwoListsWouldShareIsRefusedNamingBoth() {
        // `Folder.items` and `Tag.items` take `_vein_pos_Folder_items`, which is also `Bin.Folder_items`'s name.
        #expect(issues("""
            Folder: { relationships: { items: { to: "Item", many: true, inverse: "folder" } } },
            Tag: { relationships: { items: { to: "Item", many: true, inverse: "tag" } } },
            Bin: { relationships: { Folder_items: { to: "Item", many: true, inverse: "bin" } } },
            Item: { relationships: { folder: { to: "Folder", inverse: "items" }, tag: { to: "Tag", inverse: "items" },
                                     bin: { to: "Bin", inverse: "Folder_items" } } }
            """) == [
            "m.json5: models.Item: the order of Folder.items and the order of Bin.Folder_items would both be stored as "
                + "column \"_vein_pos_Folder_items\" of Item; rename one of them",
        ])
    }

    @Test func aLinkTableTwoRelationshipsWouldShareIsRefusedNamingBoth() {
        #expect(issues("""
            A: { relationships: { b_c: { to: "T", many: true } } },
            A_b: { relationships: { c: { to: "T", many: true } } },
            T: { fields: { n: "int" } }
            """) == [
            "m.json5: models.A_b: A.b_c and A_b.c would both be stored as table \"_vein_link_A_b_c\"; rename one of them",
        ])
    }
}
