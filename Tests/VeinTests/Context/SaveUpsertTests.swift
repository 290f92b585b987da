import Foundation
import Testing
@testable import Vein

/// An insert that upserts (VeinCore's) whose unique value another context saved after the insert: the
/// save, inside its transaction, makes it the update of that row.
@Suite struct SaveUpsertTests {
    static let manifestText = """
        { vein: 1, app: "test.saveupsert", version: "1.0.0", models: {
            Product: { fields: { sku: "string unique", name: "string" },
                       relationships: { reviews: { to: "Review", many: true, inverse: "product" }, labels: { to: "Label", many: true },
                                        shop: { to: "Shop", inverse: "products" } } },
            Shop: { fields: { name: "string" }, relationships: { products: { to: "Product", many: true, inverse: "shop", deleteRule: "cascade" } } },
            Review: { fields: { stars: "int" }, relationships: { product: { to: "Product", inverse: "reviews" } } },
            Label: { fields: { name: "string" } },
        } }
        """

    struct Fixture {
        let dir: TempDir
        init() throws {
            dir = try TempDir()
            _ = try dir.plaintextStore("s.vein", manifest: try ManifestParser.parse(SaveUpsertTests.manifestText, file: "m.json5"))
        }
        func context() throws -> ObjectContext { ObjectContext(store: try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))) }
    }

    /// A inserts sku A-1 with a review linked from the review's side; B then saves A-1 with a review and a
    /// label. B's row and links are kept, A's values and review join it.
    private func raced(_ f: Fixture) throws -> (a: ObjectContext, mine: ModelObject, myReview: ModelObject, theirs: String, theirReview: String) {
        let a = try f.context()
        let mine = try a.insert("Product", pendingValues: [PendingValue(key: "sku", column: -1, value: .string("A-1")),
                                                          PendingValue(key: "name", column: -1, value: .string("Mine"))], upsertsOnSave: true)
        let myReview = try a.insert("Review", ["stars": .int(5), "product": .string(mine.id)])
        let b = try f.context()
        let label = try b.insert("Label", ["name": .string("lamps")])
        let theirs = try b.insert("Product", ["sku": .string("A-1"), "name": .string("Theirs"), "labels": .array([.string(label.id)])])
        let theirReview = try b.insert("Review", ["stars": .int(1), "product": .string(theirs.id)])
        try b.save()
        return (a, mine, myReview, theirs.id, theirReview.id)
    }

    @Test func aStoredRowMetAtSaveIsUpdated() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let (a, mine, myReview, theirs, theirReview) = try raced(f)
        try a.save()
        #expect(mine.id == theirs, "the insert took the row's key")
        #expect(try a.object("Product", id: theirs) === mine, "the context's object for the row is the insert's")
        #expect(try myReview["product"] == .string(theirs))
        let reader = try f.context()
        let rows = try reader.fetch(ObjectFetch(model: "Product"))
        #expect(rows.count == 1)
        #expect(try rows[0]["name"] == .string("Mine") && rows[0].id == theirs)
        #expect(Set(try rows[0].related("reviews").map(\.id)) == [theirReview, myReview.id], "its reviews kept, the new one added")
        #expect(try rows[0].related("labels").map { try $0["name"] } == [.string("lamps")], "labels it never set stay")
    }

    @Test func aRelationshipSetSinceTheInsertReplacesTheRows() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let (a, mine, _, theirs, _) = try raced(f)
        let other = try a.insert("Label", ["name": .string("desks")])
        try mine.set("labels", .array([.string(other.id)]))
        try a.save()
        let reader = try f.context()
        let row = try #require(try reader.object("Product", id: theirs))
        #expect(try row.related("labels").map { try $0["name"] } == [.string("desks")])
    }

    /// A save that fails after the insert took the row's key puts everything back: the insert pending under
    /// its own key, what named it naming it, the row not the context's; saved again, it works.
    @Test func aSaveFailingAfterTheRekeyLeavesTheContextAsBefore() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let (a, mine, myReview, theirs, _) = try raced(f)
        let ownID = mine.id
        let changesBefore = a.changes()
        let registeredBefore = a.registeredObjectCount
        a.saveFailureInjection = { n in if n == 1 { throw ContextError.constraintViolation("injected") } }
        #expect(throws: ContextError.constraintViolation("injected")) { try a.save() }
        #expect(mine.id == ownID && !mine.isDeleted)
        #expect(a.changes() == changesBefore)
        #expect(a.registeredObjectCount == registeredBefore, "the identity map holds each object once, under its own key")
        #expect(try myReview["product"] == .string(ownID))
        #expect(try a.object("Product", id: ownID) === mine)
        #expect(try a.object("Product", id: theirs) !== mine)
        #expect(try f.context().fetch(ObjectFetch(model: "Product")).map { try $0["name"] } == [.string("Theirs")])
        a.saveFailureInjection = nil
        try a.save()
        #expect(mine.id == theirs)
        #expect(try f.context().fetch(ObjectFetch(model: "Product")).map { try $0["name"] } == [.string("Mine")])
    }

    /// The context holds the row as an object the app holds too: one object per row, so the save says so.
    /// Held by the context alone, it gives way to the insert.
    @Test func aRowTheContextHoldsIsNamedOrGivesWay() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let b = try f.context()
        let stored = try b.insert("Product", ["sku": .string("A-1"), "name": .string("Stored")])
        try b.save()
        let a = try f.context()
        var held: ModelObject? = try a.fetch(ObjectFetch(model: "Product")).first
        let mine = try a.insert("Product", pendingValues: [PendingValue(key: "sku", column: -1, value: .string("A-1")),
                                                          PendingValue(key: "name", column: -1, value: .string("Mine"))], upsertsOnSave: true)
        let error = try #require(throws: ContextError.self) { try a.save() }
        #expect(error.description == "a new Product has the sku of Product \(stored.id), which this context holds: "
                + "change that Product instead of inserting another, or give the new one another sku; nothing was saved")
        #expect(held?.id == stored.id)
        held = nil
        try a.save()
        #expect(mine.id == stored.id)
        #expect(try f.context().fetch(ObjectFetch(model: "Product")).map { try $0["name"] } == [.string("Mine")])
    }

    /// The row holding the value is one the same save deletes: through a delete rule the context never
    /// saw (the shop's products were not read), or deleted by the context itself. Updating it would save a
    /// deleted row as the insert; the save says so and writes nothing.
    @Test func aRowTheSaveDeletesIsNotUpdated() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let b = try f.context()
        let shop = try b.insert("Shop", ["name": .string("Lamps")])
        let stored = try b.insert("Product", ["sku": .string("A-1"), "name": .string("Stored"), "shop": .string(shop.id)])
        try b.save()
        let expected = "a new Product has the sku of Product \(stored.id), which this save deletes: save the delete first, "
            + "then insert the new one; nothing was saved"

        let a = try f.context()
        try a.delete(try #require(try a.object("Shop", id: shop.id)))
        let mine = try a.insert("Product", pendingValues: [PendingValue(key: "sku", column: -1, value: .string("A-1")),
                                                          PendingValue(key: "name", column: -1, value: .string("Mine"))], upsertsOnSave: true)
        let ownID = mine.id
        let error = try #require(throws: ContextError.self) { try a.save() }
        #expect(error.description == expected)
        #expect(mine.id == ownID, "the insert keeps its own key")
        #expect(try f.context().fetch(ObjectFetch(model: "Product")).map { try $0["name"] } == [.string("Stored")])

        let c = try f.context()
        try c.delete(try #require(try c.object("Product", id: stored.id)))
        try c.insert("Product", pendingValues: [PendingValue(key: "sku", column: -1, value: .string("A-1")),
                                                PendingValue(key: "name", column: -1, value: .string("New"))], upsertsOnSave: true)
        #expect(throws: ContextError.uniqueValueOfDeletedRow(model: "Product", field: "sku", id: stored.id)) { try c.save() }
    }

    /// Without `upsertsOnSave` (the engine's own inserts, the CLI's), the store refuses the value.
    @Test func aPlainInsertIsRefused() throws {
        let f = try Fixture()
        defer { f.dir.cleanUp() }
        let a = try f.context()
        try a.insert("Product", ["sku": .string("A-1"), "name": .string("Mine")])
        let b = try f.context()
        try b.insert("Product", ["sku": .string("A-1"), "name": .string("Theirs")])
        try b.save()
        let error = try #require(throws: ContextError.self) { try a.save() }
        #expect(error.description == "the store refused the change: another Product already has this sku (sku is unique)")
    }
}
