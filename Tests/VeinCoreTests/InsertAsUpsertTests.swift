import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product
private typealias Review = ShopSchema.Review

/// As SwiftData: inserting an instance whose `@Unique` value a stored row holds updates that row, and a
/// save that fails leaves the context as it was before the save.
@Suite struct InsertAsUpsertTests {
    @Test func insertingAStoredUniqueValueUpdatesThatRow() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = Product(sku: "A-1", name: "Lamp")
        lamp.price = 10
        lamp.reviews = [Review(stars: 5)]
        context.insert(lamp)
        try context.save()

        let fresh = Product(sku: "A-1", name: "Desk lamp")
        fresh.price = 12
        context.insert(fresh)
        try context.save()
        #expect(fresh.id == lamp.id, "the inserted instance is the row's")
        #expect(lamp.name == "Desk lamp" && fresh.price == 12 && fresh.reviews.map(\.stars) == [5])
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).map(\.name) == ["Desk lamp"])
        #expect(try reader.fetch(Product.self).first?.reviews.map(\.stars) == [5], "reviews it never assigned stay")
    }

    /// "As it was": the same pending changes, each instance with the values it had, the store unchanged.
    /// Here the value became another context's after the insert: fixed, the same changes save.
    @Test func aFailedSaveLeavesTheContextAsItWas() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let mine = Product(sku: "B-1", name: "Mine")
        context.insert(mine)
        let other = container.newContext()
        other.insert(Product(sku: "B-1", name: "Theirs"))
        try other.save()

        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.description == "the store refused the change: UNIQUE constraint failed: Product.sku")
        #expect(context.hasChanges && mine.name == "Mine" && mine.sku == "B-1")
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).map(\.name) == ["Theirs"])
        mine.sku = "B-2"
        try context.save()
        #expect(try reader.fetch(Product.self).map(\.sku).sorted() == ["B-1", "B-2"])
    }

    /// A value a stored row gives up only in an unsaved delete: the save would write the new row first and
    /// fail every time, so the insert is not made and the next save says so, writing nothing.
    @Test func aValueHeldByAnUnsavedDeleteIsRefusedAtTheInsert() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = Product(sku: "A-1", name: "Lamp")
        context.insert(lamp)
        try context.save()
        context.delete(lamp)
        context.insert(Product(sku: "A-1", name: "New lamp"))
        let error = try #require(context.deferredFailure(ModelConvenienceError.self))
        #expect(try container.newContext().fetchCount(Product.self) == 1, "the failed save deleted nothing")
        #expect(error.description == "Product row \(lamp.persistentModelID.key) still holds this sku in the store; this context deleted it "
                + "without saving, and a save writes new rows before deletes: save first, then insert or upsert the new one")
        try context.save()
        context.insert(Product(sku: "A-1", name: "New lamp"))
        try context.save()
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).map(\.name) == ["New lamp"])
    }
}
