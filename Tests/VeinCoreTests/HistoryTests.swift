import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product
private typealias Review = ShopSchema.Review

/// SwiftData's history API as its documentation writes it (docs/app-guide.md#history): a widget's
/// context and the app's tell their changes apart by author, and the app resumes from the token it kept,
/// across containers.
@Suite struct HistoryTests {
    static func container(_ folder: String, keepsHistory: Bool = true) throws -> ModelContainer {
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/shop.vein"), appID: "com.example.shop",
                                               keyProvider: .keyFile("\(folder)/shop.key"), keepsHistory: keepsHistory)
        return try ModelContainer(for: Product.self, Review.self, ShopSchema.Memo.self, configurations: configuration)
    }

    /// The WWDC24 sample's `findTransactions(after:author:)`, as written there.
    static func findTransactions(in container: ModelContainer, after token: DefaultHistoryToken?, author: String) throws -> [DefaultHistoryTransaction] {
        var historyDescriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        if let token {
            historyDescriptor.predicate = #Predicate { transaction in
                (transaction.token > token) && (transaction.author == author)
            }
        }
        let taskContext = ModelContext(container)
        return try taskContext.fetchHistory(historyDescriptor)
    }

    @Test func transactionsByAuthorAfterAToken() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let container = try Self.container(folder)
        let app = ModelContext(container)
        app.author = "app"
        let lamp = Product(sku: "A-1", name: "Lamp")
        app.insert(lamp)
        try app.save()

        let widget = ModelContext(container)
        widget.author = "widget"
        let review = Review(stars: 4)
        widget.insert(review)
        review.product = try widget.fetch(FetchDescriptor<Product>()).first
        try widget.save()

        let all = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(all.map(\.author) == ["app", "widget"])
        let first = try #require(all.first?.token)

        // Kept as an app keeps it, then read back in a new container: the token still works.
        let saved = try JSONEncoder().encode(first)
        try container.close()
        let reopened = try Self.container(folder)
        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: saved)
        let fromWidget = try Self.findTransactions(in: reopened, after: token, author: "widget")
        #expect(fromWidget.count == 1)
        let changes = try #require(fromWidget.first?.changes)
        var inserted: [PersistentIdentifier] = [], updated: [String] = []
        for change in changes {
            switch change {
            case .insert(let insert as DefaultHistoryInsert<Review>):
                inserted.append(insert.changedPersistentIdentifier)
            case .update(let update as DefaultHistoryUpdate<Review>):
                updated += update.updatedAttributes.compactMap { Review.propertyName(for: $0) }
            default: break
            }
        }
        #expect(inserted.map(\.entityName) == ["Review"])
        #expect(updated.isEmpty, "the review's product is written with its insert")
        #expect(try Self.findTransactions(in: reopened, after: fromWidget.last!.token, author: "widget").isEmpty)
    }

    @Test func updatesNameTheChangedPropertiesAndDeletesTheRow() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let container = try Self.container(folder)
        let context = ModelContext(container)
        let lamp = Product(sku: "A-1", name: "Lamp")
        context.insert(lamp)
        try context.save()
        lamp.price = 12
        lamp.note = "on sale"
        try context.save()
        context.delete(lamp)
        try context.save()

        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: nil, sortBy: [SortDescriptor(\.token, order: .reverse)])
        descriptor.fetchLimit = 2
        let latest = try context.fetchHistory(descriptor)
        #expect(latest.count == 2)
        guard case .delete(let deletion as DefaultHistoryDelete<Product>)? = latest[0].changes.first else {
            Issue.record("the last transaction deletes the product: \(latest[0].changes)")
            return
        }
        #expect(deletion.changedPersistentIdentifier == lamp.persistentModelID)
        guard case .update(let update as DefaultHistoryUpdate<Product>)? = latest[1].changes.first else {
            Issue.record("the one before updates it: \(latest[1].changes)")
            return
        }
        #expect(Set(update.updatedAttributes.compactMap { Product.propertyName(for: $0) }) == ["price", "note"])
        #expect(latest[0].timestamp >= latest[1].timestamp)
    }

    /// SwiftData's `deleteHistory` with its usual descriptor: everything before a token the app processed.
    @Test func deleteHistoryRemovesTheTransactionsBeforeAToken() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let container = try Self.container(folder)
        let context = ModelContext(container)
        for sku in ["A-1", "A-2", "A-3"] {
            context.insert(Product(sku: sku, name: sku))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        try #require(all.count == 3)
        let kept = all[2].token
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.predicate = #Predicate { $0.token < kept }
        try context.deleteHistory(descriptor)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.token) == [kept])
        // A descriptor that selects nothing at the start removes nothing.
        var none = HistoryDescriptor<DefaultHistoryTransaction>()
        none.predicate = #Predicate { $0.author == "nobody" }
        try context.deleteHistory(none)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
        // The token the app kept is older than what remains: reading after it would return less than
        // happened since, so it expired, as in SwiftData.
        let first = all[0].token
        var after = HistoryDescriptor<DefaultHistoryTransaction>()
        after.predicate = #Predicate { $0.token > first }
        #expect(throws: HistoryError.tokenExpired(first.value, prunedThrough: all[1].token.value)) { try context.fetchHistory(after) }
        let second = all[1].token
        after.predicate = #Predicate { $0.token > second }
        #expect(try context.fetchHistory(after).map(\.token) == [kept], "a token at the pruned edge has lost nothing")
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        #expect(try context.fetch(FetchDescriptor<Product>()).count == 3, "history goes, the data stays")
    }

    /// A live query says which commit its results reflect; an app that keeps that token learns after a
    /// restart what changed while it was away.
    @Test func aLiveQueryTellsTheTokenItsResultsReflect() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        var container = try Self.container(folder)
        let context = ModelContext(container)
        context.insert(Product(sku: "A-1", name: "Lamp"))
        try context.save()
        let live = LiveQuery(FetchDescriptor<Product>(), in: context, pollInterval: nil)
        let kept = try #require(live.historyToken)
        #expect(kept == (try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())).last?.token)
        let saved = try JSONEncoder().encode(kept)
        try container.close()

        // Meanwhile another program saves; then the app starts again with the token it kept.
        container = try Self.container(folder)
        let other = ModelContext(container)
        other.insert(Product(sku: "A-2", name: "Desk"))
        try other.save()
        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: saved)
        var since = HistoryDescriptor<DefaultHistoryTransaction>()
        since.predicate = #Predicate { $0.token > token }
        let missed = try ModelContext(container).fetchHistory(since)
        #expect(missed.count == 1)
        let again = LiveQuery(FetchDescriptor<Product>(), in: ModelContext(container), pollInterval: nil)
        #expect(again.historyToken == missed.last?.token)
        #expect(again.results.count == 2)

        let plain = try Self.container(try ModelContainerTests.temporaryFolder(), keepsHistory: false)
        #expect(LiveQuery(FetchDescriptor<Product>(), in: ModelContext(plain), pollInterval: nil).historyToken == nil)
    }

    @Test func aStoreWithoutHistorySaysSo() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let container = try Self.container(folder, keepsHistory: false)
        #expect(throws: HistoryError.notKept("\(folder)/shop.vein")) {
            try container.mainContext.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        }
    }

    /// `@Attribute(.preserveValueOnDeletion)`: the deleted row's value is in its tombstone, as in SwiftData.
    @Test func aTombstoneKeepsThePreservedValues() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/trips.vein"), appID: "com.example.trips",
                                               keyProvider: .keyFile("\(folder)/trips.key"), keepsHistory: true)
        let container = try ModelContainer(for: TombstoneSchema.Trip.self, configurations: configuration)
        let context = ModelContext(container)
        let trip = TombstoneSchema.Trip(name: "Lisbon", destination: "PT")
        context.insert(trip)
        try context.save()
        context.delete(trip)
        try context.save()
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        guard case .delete(let deletion as DefaultHistoryDelete<TombstoneSchema.Trip>)? = last.changes.first else {
            Issue.record("the last transaction deletes the trip: \(last.changes)")
            return
        }
        #expect(deletion.tombstone[\.name] as? String == "Lisbon")
        #expect(deletion.tombstone[\.destination] == nil, "not marked: not kept")
        #expect(Array(deletion.tombstone).count == 1)
    }
}

enum TombstoneSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Trip.self]

    @Model
    final class Trip {
        @Attribute(.unique, .preserveValueOnDeletion) var name: String
        var destination: String

        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}
