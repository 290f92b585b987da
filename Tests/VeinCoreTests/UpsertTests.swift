import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product
private typealias Review = ShopSchema.Review

/// `Post.upsert` beyond the first steps (ModelConveniencesTests): the whole state replaces the row's,
/// a refusal changes nothing, and what a save could not write is refused at once.
@Suite struct UpsertTests {
    fileprivate static func stored(_ context: ModelContext) throws -> Product {
        let lamp = Product(sku: "A-1", name: "Lamp")
        lamp.slug = "lamp"
        lamp.note = "assigned later"
        lamp.color = "red"
        lamp.price = 10
        lamp.reviews = [Review(stars: 5)]
        context.insert(lamp)
        try context.save()
        return lamp
    }

    /// As SwiftData: a field the new instance never assigned is nil (an optional field, whether declared
    /// `var note: String?` or `var color: String? = nil`). Unlike SwiftData, a relationship it never
    /// assigned keeps the row's members (UpsertRelationshipTests).
    @Test func theNewInstancesWholeStateReplacesTheRows() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = try Self.stored(context)
        let kept = try Product.upsert(Product(sku: "A-1", name: "Desk lamp"), in: context)
        #expect(kept === lamp)
        #expect(lamp.name == "Desk lamp" && lamp.price == 0 && lamp.slug == nil)
        #expect(lamp.note == nil, "declared without an initializer, never assigned")
        #expect(lamp.color == nil, "declared `= nil`")
        #expect(lamp.reviews.map(\.stars) == [5])
        try context.save()
        let reader = container.newContext()
        let check = try #require(try reader.fetch(Product.self).first)
        #expect(check.note == nil && check.color == nil && check.reviews.map(\.stars) == [5] && check.name == "Desk lamp")
    }

    /// Everything is checked before the first change: a value the store cannot hold, or a target that is
    /// another context's, leaves the row, its relationships and the new instance's members as they were.
    @Test func aRefusedUpsertChangesNothing() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = try Self.stored(context)

        let notANumber = Product(sku: "A-1", name: "NaN lamp")
        notANumber.price = 99
        notANumber.weight = .nan
        notANumber.reviews = [Review(stars: 1)]
        let nan = try #require(throws: ContextError.self) { try Product.upsert(notANumber, in: context) }
        #expect(nan.description == "Product.weight takes a finite Double, not NaN")
        #expect(lamp.name == "Lamp" && lamp.price == 10 && lamp.note == "assigned later" && lamp.reviews.map(\.stars) == [5])
        #expect(!context.hasChanges)

        let other = container.newContext()
        let foreign = Review(stars: 3)
        other.insert(foreign)
        let pointing = Product(sku: "A-1", name: "Foreign lamp")
        let member = Review(stars: 2)
        member.product = pointing
        pointing.reviews = [member, foreign]
        let error = try #require(throws: ModelConvenienceError.self) { try Product.upsert(pointing, in: context) }
        #expect(error.description == "upsert: this Product's reviews names Review \(foreign.persistentModelID.key), which is deleted or another context's; "
                + "point it at an object of this context")
        #expect(lamp.name == "Lamp" && lamp.reviews.map(\.stars) == [5])
        #expect(member.product === pointing && member.isInNoContext, "the member still points at the new instance, in no context")
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(Review.self) == 1)
    }

    /// A save writes new rows before it deletes: a value a stored row holds until an unsaved delete is
    /// written cannot go to a new row in the same save. Upsert says so at once, rather than a save that
    /// can never succeed.
    @Test func aValueHeldByAnUnsavedDeleteIsRefusedUntilSaved() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = try Self.stored(context)
        try lamp.delete()
        let again = try #require(throws: ModelConvenienceError.self) { try Product.upsert(Product(sku: "A-1", name: "New lamp"), in: context) }
        #expect(again.description == "Product row \(lamp.persistentModelID.key) still holds this sku in the store; this context deleted it "
                + "without saving, and a save writes new rows before deletes: save first, then insert or upsert the new one")
        #expect(again == .valueHeldByUnsavedDelete(model: "Product", field: "sku", id: lamp.persistentModelID.key))
        try context.save()
        #expect(try Product.upsert(Product(sku: "A-1", name: "New lamp"), in: context).name == "New lamp")
        try context.save()
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).map(\.name) == ["New lamp"])
    }

    /// A save writes changed rows before new ones: a unique value an unsaved change moved away from a row
    /// is free for a new row (upserted or inserted) in the same save.
    @Test func aValueMovedAwayInAnUnsavedChangeIsFreeForANewRow() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = try Self.stored(context)
        lamp.sku = "A-2"
        let upserted = try Product.upsert(Product(sku: "A-1", name: "Upserted"), in: context)
        #expect(upserted !== lamp)
        try context.save()
        lamp.sku = "A-3"
        upserted.sku = "A-4"
        context.insert(Product(sku: "A-3", name: "Inserted"))
        #expect(throws: ContextError.self) { try context.save() }
        lamp.sku = "A-5"
        try context.save()
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).map(\.sku).sorted() == ["A-3", "A-4", "A-5"])
    }

    @Test func anInstanceDeletedOrOfAContextGoneIsRefused() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = try Self.stored(context)
        try lamp.delete()
        let deleted = try #require(throws: ModelConvenienceError.self) { try Product.upsert(lamp, in: context) }
        #expect(deleted.description == "upsert: this Product (\(lamp.persistentModelID.key)) is deleted in this context; upsert a new instance (or rollback to undo the delete)")

        var orphan: Product?
        do {
            let gone = container.newContext()
            orphan = try gone.fetch(Product.self).first
        }
        let instance = try #require(orphan)
        // The instance keeps the context it was fetched in: it is another context's, not a gone one's.
        #expect(throws: ModelConvenienceError.inAnotherContext(model: "Product", id: lamp.persistentModelID.key)) { try Product.upsert(instance, in: context) }
    }
}
