import Foundation
import Testing
@testable import Vein

/// An object keeps its row's key as its 128 bits when the key is a ULID, and as its text otherwise (ids
/// another tool or an import chose); either way `id` gives the row's key exactly as stored, lookups by
/// it find the one object of the row (ARCHITECTURE.md I1), and messages about the row name it.
@Suite struct ObjectIdentityTests {
    static let manifest = """
        { vein: 1, app: "com.example.identity", version: "1.0.0", models: { Item: { fields: { title: "string", views: "int" } } } }
        """
    /// A canonical ULID, a lowercase one (not canonical: kept as text) and a key no ULID could be.
    static let ids = ["01J00000000000000000000001", "01j00000000000000000000002", "item-3"]

    final class Fixture {
        let dir: TempDir
        let store: Store

        init() throws {
            dir = try TempDir()
            store = try dir.plaintextStore("i.vein", manifest: try ManifestParser.parse(ObjectIdentityTests.manifest, file: "m"))
            for (n, id) in ObjectIdentityTests.ids.enumerated() {
                try store.database.execute("INSERT INTO \"Item\" VALUES ('\(id)', 't\(n)', \(n))")
            }
        }

        deinit { dir.cleanUp() }
    }

    @Test func idsReadBackExactlyAsStoredAndFindTheSameObject() throws {
        let f = try Fixture()
        let context = ObjectContext(store: f.store)
        let fetched = try context.fetch(ObjectFetch(model: "Item"))
        #expect(Set(fetched.map(\.id)) == Set(Self.ids))
        for object in fetched {
            #expect(object.id == object.id)  // asked again: the same text
            #expect(try context.object("Item", id: object.id) === object)
        }
        // Fetched again: the same objects, not new ones.
        let again = try context.fetch(ObjectFetch(model: "Item"))
        #expect(zip(fetched.sorted { $0.id < $1.id }, again.sorted { $0.id < $1.id }).allSatisfy { $0 === $1 })
    }

    @Test func anInsertedObjectsIDIsItsULIDsText() throws {
        let f = try Fixture()
        let context = ObjectContext(store: f.store)
        let object = try context.insert("Item", ["title": .string("new"), "views": .int(9)])
        let id = object.id
        #expect(id.count == 26 && ULID(id) != nil)
        try context.save()
        #expect(try ObjectContext(store: f.store).object("Item", id: id)?["title"] == .string("new"))
    }

    @Test(arguments: ids) func aDamagedCellNamesTheRowByItsStoredKey(_ id: String) throws {
        let f = try Fixture()
        try f.store.database.execute("""
            PRAGMA ignore_check_constraints = ON; UPDATE "Item" SET views = 'many' WHERE \(StoreFormat.key) = '\(id)';
            PRAGMA ignore_check_constraints = OFF
            """)
        let error = #expect(throws: DamagedValueError.self) { _ = try ObjectContext(store: f.store).fetch(ObjectFetch(model: "Item")) }
        #expect(error?.id == id)
    }
}
