import Foundation
import Testing
@testable import Vein
import VeinCore

private typealias Product = ShopSchema.Product
private typealias Review = ShopSchema.Review

/// The per-model conveniences of docs/app-guide.md: `Post.fetch(where:sort:in:)`, `Post.fetchOne`,
/// `context.fetchAll(#Predicate)`, `Post.upsert`, `post.delete()`. Relationship queries and
/// `ModelPredicate` have suites of their own.
@Suite struct ModelConveniencesTests {
    /// The blog of TypedFetchTests, in memory.
    static func blog() throws -> ModelContainer {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        for (title, views) in [("Vein 1.0", 5), ("Hello", 9), ("Vein on Linux", 2), ("Notes", 9), ("About Vein", 0)] {
            let post = Post(title: title, content: "")
            post.views = views
            container.context.insert(post)
        }
        try container.context.save()
        return container
    }

    static func shop() throws -> ModelContainer {
        try ModelContainer(for: ShopSchema.self, at: nil, appID: "com.example.shop")
    }

    @Test func fetchAndFetchOneAreTheDescriptorsFetchSaidShorter() throws {
        let container = try Self.blog()
        let context = container.context
        #expect(try Post.fetch(where: #Predicate { $0.views > 1 }, sort: [SortDescriptor(\.title)], in: context).map(\.title)
                == ["Hello", "Notes", "Vein 1.0", "Vein on Linux"])
        #expect(try Post.fetch(in: context).map(\.title) == ["Vein 1.0", "Hello", "Vein on Linux", "Notes", "About Vein"])
        // Ties (9 views) in creation order; nothing selected is nil.
        #expect(try Post.fetchOne(sort: [SortDescriptor(\.views, order: .reverse)], in: context)?.title == "Hello")
        #expect(try Post.fetchOne(where: #Predicate { $0.views > 100 }, in: context) == nil)
        // A predicate Foundation evaluates: the limit of one applies after it, not to the first stored row.
        #expect(context.translates(#Predicate<Post> { $0.shoutedTitle == "NOTES" }) == false)
        #expect(try Post.fetchOne(where: #Predicate { $0.shoutedTitle == "NOTES" }, in: context)?.title == "Notes")
        // Unsaved objects count, as in `fetch(FetchDescriptor)`.
        context.insert(Post(title: "Vein draft", content: ""))
        #expect(try Post.fetchOne(where: #Predicate { $0.title == "Vein draft" }, in: context)?.title == "Vein draft")
        // The instance is the context's one for its row.
        let hello = try #require(try Post.fetchOne(where: #Predicate { $0.title == "Hello" }, in: context))
        #expect(try Post.fetch(where: #Predicate { $0.views == 9 }, in: context).first === hello)
    }

    /// `fetchOne` with a predicate and sort keys SQL runs: LIMIT 1 in SQL, so one row of 2,000 is read
    /// (fetching all and taking the first would materialize every one).
    @Test func fetchOneReadsOneRowWhenTheWholeFetchIsInSQL() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        for i in 0..<2_000 {
            let post = Post(title: "p\(i)", content: "")
            post.views = i % 7
            container.context.insert(post)
        }
        try container.context.save()
        let reader = container.newContext()
        let top = try Post.fetchOne(where: #Predicate { $0.views > 5 }, sort: [SortDescriptor(\.title, order: .reverse)], in: reader)
        #expect(top?.title == "p993")
        #expect(reader.engine.lock.withLock { reader.engine.identityMap.count } == 1)
    }

    /// The announcement's `context.fetchAll(#Predicate<Post> { … })`: the model from the predicate.
    @Test func fetchAllTakesTheModelFromThePredicate() throws {
        let container = try Self.blog()
        let posts = try container.context.fetchAll(#Predicate<Post> { post in post.title.contains("Vein") })
        #expect(posts.map(\.title) == ["Vein 1.0", "Vein on Linux", "About Vein"])
    }

    @Test func deleteDeletesTheInstanceInItsContext() throws {
        let container = try Self.blog()
        let notes = try #require(try Post.fetchOne(where: #Predicate { $0.title == "Notes" }, in: container.context))
        try notes.delete()
        #expect(container.context.hasChanges)
        try container.context.save()
        #expect(try container.newContext().fetchCount(Post.self, where: #"title == "Notes""#) == 0)
        #expect(try container.newContext().fetchCount(Post.self) == 4)

        let draft = Post(title: "never inserted", content: "")
        let error = try #require(throws: ModelConvenienceError.self) { try draft.delete() }
        #expect(error.description == "delete(): this Post is in no context; insert it (or fetch it) first")
    }

    @Test func upsertInsertsANewIdentityAndUpdatesTheRowOfAKnownOne() throws {
        let container = try Self.shop()
        let context = container.context
        let lamp = Product(sku: "A-1", name: "Lamp")
        lamp.note = "first"
        #expect(try Product.upsert(lamp, in: context) === lamp, "no row has A-1: inserted")
        #expect(!lamp.isInNoContext)

        // Unsaved, and still found: one row per identity.
        let newer = Product(sku: "A-1", name: "Desk lamp")
        newer.price = 30
        let review = Review(stars: 5)
        newer.reviews = [review]
        let kept = try Product.upsert(newer, in: context)
        #expect(kept === lamp)
        #expect(newer.isInNoContext, "the new instance stays out of the context")
        #expect(lamp.name == "Desk lamp" && lamp.price == 30)
        #expect(lamp.note == nil, "the new instance's whole state: an optional field it never assigned is nil")
        #expect(lamp.reviews.map(\.stars) == [5] && review.product === lamp)
        try context.save()

        // Stored, seen by another context.
        let reader = container.newContext()
        let again = Product(sku: "A-1", name: "Lamp, again")
        let stored = try Product.upsert(again, in: reader)
        #expect(stored.id == lamp.id && stored.name == "Lamp, again" && stored.price == 0, "given by its initial value")
        #expect(stored.reviews.map(\.stars) == [5], "a relationship the new instance never assigned stays as stored")
        try reader.save()
        let check = container.newContext()
        #expect(try check.fetch(Product.self).map(\.name) == ["Lamp, again"])
        #expect(try check.fetch(Review.self).map { $0.product?.name } == ["Lamp, again"], "the review stays a member")

        // A member of the new instance that points back at it points at the kept row: inserting the member
        // does not insert the new instance as a second A-1.
        let pointing = Product(sku: "A-1", name: "Lamp, pointed at")
        let back = Review(stars: 2)
        back.product = pointing
        pointing.reviews = [back]
        let same = try Product.upsert(pointing, in: reader)
        #expect(same === stored && back.product === stored && stored.reviews.map(\.stars) == [2])
        try reader.save()
        #expect(try check.fetchCount(Product.self) == 1)

        // A nil unique value identifies nothing; another value is another row.
        _ = try Product.upsert(Product(sku: "B-2", name: "Chair"), in: reader)
        try reader.save()
        #expect(try check.fetch(Product.self).map(\.sku) == ["A-1", "B-2"])
    }

    @Test func upsertRefusesWhatHasNoOneRow() throws {
        let container = try Self.shop()
        let context = container.context
        let memo = try #require(throws: ModelConvenienceError.self) { try ShopSchema.Memo.upsert(ShopSchema.Memo(text: "x"), in: context) }
        #expect(memo.description
                == "upsert: Memo has no @Unique field to find the existing row by; mark the field that identifies a Memo @Unique, or use insert")

        let a = Product(sku: "A", slug: "a", name: "A"), b = Product(sku: "B", slug: "b", name: "B")
        context.insert(a)
        context.insert(b)
        try context.save()
        let both = Product(sku: "A", slug: "b", name: "both")
        let error = try #require(throws: ModelConvenienceError.self) { try Product.upsert(both, in: context) }
        #expect(error.description == "upsert: this Product's sku is the one of row \(a.persistentModelID.key) and its slug the one of row \(b.persistentModelID.key); "
                + "one instance cannot be both rows: change or delete one of them first")
        #expect(!context.hasChanges && a.name == "A" && b.name == "B")
        #expect(both.name == "both" && both.isInNoContext, "the refused instance keeps its values")

        let otherContext = container.newContext()
        let elsewhere = try #require(try otherContext.fetch(Product.self).first)
        let other = try #require(throws: ModelConvenienceError.self) { try Product.upsert(elsewhere, in: context) }
        #expect(other.description == "upsert: this Product (\(a.persistentModelID.key)) belongs to another context; upsert a new instance, or fetch the row in this context")
    }

    /// Two contexts that each find no row and each insert one: the second save finds the row the first
    /// saved, inside its transaction, and updates it; there is never a second row for one identity.
    @Test func twoContextsUpsertingOneIdentityMakeOneRow() throws {
        let container = try Self.shop()
        let first = container.newContext(), second = container.newContext()
        let one = try Product.upsert(Product(sku: "X-1", name: "one"), in: first)
        let two = try Product.upsert(Product(sku: "X-1", name: "two"), in: second)
        #expect(one.id != two.id, "neither context sees the other's unsaved row")
        try first.save()
        try second.save()
        #expect(two.id == one.id)
        let check = container.newContext()
        #expect(try check.fetch(Product.self).map(\.name) == ["two"])
    }
}

