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

    /// Another context saved the value after the insert: the save, inside its transaction, finds the row
    /// and updates it. The row keeps its key (its reviews stay), takes the instance's fields, and the
    /// instance is the row's from then on.
    @Test func aValueSavedElsewhereAfterTheInsertUpdatesThatRow() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let mine = Product(sku: "B-1", name: "Mine")
        mine.price = 7
        context.insert(mine)
        let other = container.newContext()
        let theirs = Product(sku: "B-1", name: "Theirs")
        theirs.reviews = [Review(stars: 2)]
        other.insert(theirs)
        try other.save()

        try context.save()
        #expect(mine.persistentModelID == theirs.persistentModelID)
        #expect(try context.fetch(Product.self).first === mine, "a fetch returns the inserted instance")
        #expect(mine.reviews.map(\.stars) == [2], "reviews it never assigned stay")
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).map { "\($0.name) \($0.price) \($0.reviews.map(\.stars))" } == ["Mine 7 [2]"])
    }

    /// "As it was": a save that fails after the insert took the row's key gives the instance its own key
    /// back, the same changes pending, the store unchanged; the next save works.
    @Test func aSaveFailingAfterTheInsertTookTheRowLeavesTheContextAsItWas() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let mine = Product(sku: "B-1", name: "Mine")
        mine.reviews = [Review(stars: 5)]
        context.insert(mine)
        let ownID = mine.persistentModelID
        let other = container.newContext()
        let theirs = Product(sku: "B-1", name: "Theirs")
        other.insert(theirs)
        try other.save()

        context.engine.saveFailureInjection = { n in if n == 1 { throw ContextError.constraintViolation("injected") } }
        #expect(throws: ContextError.constraintViolation("injected")) { try context.save() }
        #expect(mine.persistentModelID == ownID && context.hasChanges && mine.name == "Mine")
        #expect(mine.reviews.first?.product === mine)
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).map(\.name) == ["Theirs"])
        context.engine.saveFailureInjection = nil
        try context.save()
        #expect(mine.persistentModelID == theirs.persistentModelID)
        #expect(try reader.fetch(Product.self).map { "\($0.name) \($0.reviews.map(\.stars))" } == ["Mine [5]"])
    }

    /// Two unsaved inserts of one value meet no stored row: the store refuses the second, and the failed
    /// save leaves both pending, each with its values; fixed, the same changes save.
    @Test func aFailedSaveLeavesTheContextAsItWas() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let mine = Product(sku: "B-1", name: "Mine")
        context.insert(mine)
        let again = Product(sku: "B-1", name: "Again")
        context.insert(again)

        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.description == "the store refused the change: another Product already has this sku (sku is unique)")
        #expect(context.hasChanges && mine.name == "Mine" && again.sku == "B-1")
        let reader = container.newContext()
        #expect(try reader.fetchCount(Product.self) == 0)
        again.sku = "B-2"
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
