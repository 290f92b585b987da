import Foundation
import Testing
@testable import Vein

/// A member row whose to-one a save sets to nil holds no position in the list it left
/// (docs/store-format.md#relationships). Found by the change log's replay property test: deleting a
/// folder whose posts the context held left each post's `_vein_pos_items` set, and `vein verify` then
/// reported the posts as holding a position in no list (an import of such a store was refused the same way).
@Suite struct SaveNullifyPositionTests {
    @Test(arguments: [false, true])
    func deletingAnOwnerClearsItsMembersPositions(membersHeld: Bool) throws {
        let f = try MigrationFixture(schema("1.0.0", """
            Folder: { fields: { name: "string" }, relationships: { items: { to: "Post", many: true, inverse: "folder" } } },
            Post: { fields: { title: "string" }, relationships: { folder: { to: "Folder", inverse: "items" } } }
            """))
        defer { f.dir.cleanUp() }
        let writer = ObjectContext(store: try f.open())
        let folder = try writer.insert("Folder", ["name": .string("f")])
        for n in 0..<2 { _ = try writer.insert("Post", ["title": .string("p\(n)"), "folder": .string(folder.id)]) }
        try writer.save()

        let context = ObjectContext(store: try f.open())
        let held = membersHeld ? try context.fetch(ObjectFetch(model: "Post")) : []
        try context.delete(try context.object("Folder", id: folder.id)!)
        try context.save()
        #expect(try f.open().database.rows(#"SELECT "folder", "_vein_pos_items" FROM "Post""#) == [[.null, .null], [.null, .null]])
        #expect(try StoreVerifier.verify(try f.open()).isClean)
        #expect(held.allSatisfy { (try? $0["folder"]) == .null })
    }
}
