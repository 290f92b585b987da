import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product
private typealias Review = ShopSchema.Review

/// An upsert of a fresh instance leaves the relationships it never assigned as the store has them, so a
/// cascade later reaches every member; one it assigned replaces them.
@Suite struct UpsertRelationshipTests {
    @Test func aRelationshipNeverAssignedKeepsTheRowsMembersAndTheCascadeTakesThem() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = Product(sku: "A-1", name: "Lamp")
        lamp.reviews = [Review(stars: 5), Review(stars: 4)]
        context.insert(lamp)
        try context.save()

        let writer = container.newContext()
        let kept = try Product.upsert(Product(sku: "A-1", name: "Desk lamp"), in: writer)
        #expect(kept.name == "Desk lamp" && kept.reviews.map(\.stars).sorted() == [4, 5])
        try writer.save()
        writer.delete(kept)
        try writer.save()
        #expect(try container.newContext().fetchCount(Review.self) == 0, "the cascade took both reviews: no orphan")
    }

    @Test func anAssignedRelationshipReplacesTheRowsMembers() throws {
        let container = try ModelConveniencesTests.shop()
        let context = container.context
        let lamp = Product(sku: "A-1", name: "Lamp")
        lamp.reviews = [Review(stars: 5)]
        context.insert(lamp)
        try context.save()

        let fresh = Product(sku: "A-1", name: "Desk lamp")
        fresh.reviews = [Review(stars: 1)]
        let kept = try Product.upsert(fresh, in: context)
        #expect(kept.reviews.map(\.stars) == [1])
        try context.save()
        let reader = container.newContext()
        #expect(try reader.fetch(Product.self).first?.reviews.map(\.stars) == [1])
        #expect(try reader.fetch(Review.self).filter { $0.product == nil }.map(\.stars) == [5],
                "the old review is unlinked, as the assignment says")
    }
}
