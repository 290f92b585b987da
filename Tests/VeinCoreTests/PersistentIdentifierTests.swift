import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product
private typealias Review = ShopSchema.Review

/// SwiftData's row identity: `persistentModelID` (also the default `id` of `Identifiable`), `model(for:)`,
/// `registeredModel(for:)` and `fetchIdentifiers`.
@Suite struct PersistentIdentifierTests {
    let container: ModelContainer

    init() throws {
        container = try ModelConveniencesTests.shop()
    }

    /// An identifier taken before the insert names the row after it, and after a save.
    @Test func anIdentifierTakenBeforeTheInsertIsTheRows() throws {
        let lamp = Product(sku: "A-1", name: "Lamp")
        let before = lamp.persistentModelID
        #expect(before.entityName == "Product")
        #expect(lamp.id == before, "Identifiable's id is persistentModelID")
        container.mainContext.insert(lamp)
        try container.mainContext.save()
        #expect(lamp.persistentModelID == before)
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Product>()).first)
        #expect(fetched.persistentModelID == before)
        #expect(try ModelContext(container).fetchIdentifiers(FetchDescriptor<Product>()) == [before])
    }

    /// `#Predicate { $0.persistentModelID == id }` is the row key in SQL, as "SwiftData outside SwiftUI"
    /// deletes a user: `delete(model:where:)` by an identifier removes that row only.
    @Test func aPredicateOnPersistentModelIDIsTheRowKey() throws {
        let context = container.mainContext
        let lamp = Product(sku: "A-1", name: "Lamp"), desk = Product(sku: "B-2", name: "Desk")
        context.insert(lamp)
        context.insert(desk)
        try context.save()
        let idToDelete = lamp.persistentModelID
        let predicate = #Predicate<Product> { item in item.persistentModelID == idToDelete }
        #expect(context.translates(predicate))
        #expect(try ModelContext(container).fetch(FetchDescriptor(predicate: predicate)).map(\.name) == ["Lamp"])
        try context.delete(model: Product.self, where: predicate)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Product>()).map(\.name) == ["Desk"])
    }

    /// An instance never asked for it gets the engine's key at insert, and keeps it.
    @Test func anIdentifierAfterTheInsertStaysTheSame() throws {
        let lamp = Product(sku: "A-1", name: "Lamp")
        container.mainContext.insert(lamp)
        let inserted = lamp.persistentModelID
        try container.mainContext.save()
        #expect(lamp.persistentModelID == inserted)
    }

    /// Insert-as-upsert: the instance becomes the stored row's, and takes its identifier.
    @Test func anUpsertingInsertTakesTheRowsIdentifier() throws {
        let lamp = Product(sku: "A-1", name: "Lamp")
        container.mainContext.insert(lamp)
        try container.mainContext.save()
        let fresh = Product(sku: "A-1", name: "Desk lamp")
        let reserved = fresh.persistentModelID
        container.mainContext.insert(fresh)
        #expect(fresh.persistentModelID == lamp.persistentModelID)
        #expect(fresh.persistentModelID != reserved)
    }

    @Test func modelForAnIdentifierFindsTheRow() throws {
        let lamp = Product(sku: "A-1", name: "Lamp")
        container.mainContext.insert(lamp)
        try container.mainContext.save()
        let context = ModelContext(container)
        let found = try #require(try context.model(for: lamp.persistentModelID) as? Product)
        #expect(found.name == "Lamp" && found !== lamp)
        #expect(try context.model(for: lamp.persistentModelID) as? Product === found, "one instance per row")
        #expect(try container.mainContext.model(for: lamp.persistentModelID) as? Product === lamp)
    }

    @Test func modelForAMissingRowThrows() throws {
        let unsaved = Product(sku: "A-1", name: "Lamp")
        let id = unsaved.persistentModelID
        #expect(throws: ModelLookupError.noSuchRow(id)) { try container.mainContext.model(for: id) }
        #expect(ModelLookupError.noSuchRow(id).description == "model(for:): no row \(id.key) of Product in the store or this "
                + "context (deleted, or not saved yet by the context that inserted it); fetch again to find what is there")
        let other = PersistentIdentifier(entityName: "Invoice", key: id.key)
        #expect(throws: ModelLookupError.unknownModel("Invoice")) { try container.mainContext.model(for: other) }
        #expect(ModelLookupError.unknownModel("Invoice").description == "model(for:): 'Invoice' is not a model of this "
                + "context's schema; look it up in a context of the container whose schema lists it")
    }

    /// Only what the context holds, without reading the store.
    @Test func registeredModelIsWhatTheContextHolds() throws {
        let lamp = Product(sku: "A-1", name: "Lamp")
        let context = container.mainContext
        #expect(context.registeredModel(for: lamp.persistentModelID) as Product? == nil)
        context.insert(lamp)
        #expect(context.registeredModel(for: lamp.persistentModelID) as Product? === lamp, "an unsaved insert too")
        #expect(context.registeredModel(for: lamp.persistentModelID) as Review? == nil, "another model")
        try context.save()
        #expect(ModelContext(container).registeredModel(for: lamp.persistentModelID) as Product? == nil, "not read from the store")
        context.delete(lamp)
        #expect(context.registeredModel(for: lamp.persistentModelID) as Product? == nil, "deleted")
    }

    @Test func identifiersAreCodableHashableAndOrdered() throws {
        let a = PersistentIdentifier(entityName: "Product", key: "01A")
        let b = PersistentIdentifier(entityName: "Product", key: "01B")
        #expect(a < b && PersistentIdentifier(entityName: "Memo", key: "01Z") < a)
        #expect(Set([a, b, a]).count == 2)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(a)
        #expect(String(decoding: json, as: UTF8.self) == #"{"entityName":"Product","key":"01A"}"#)
        #expect(try JSONDecoder().decode(PersistentIdentifier.self, from: json) == a)
    }

    /// A model that declares its own `id` (a stored field) keeps it as `Identifiable`'s.
    @Test func aModelsOwnIdIsIdentifiablesId() {
        func identity<T: Identifiable>(_ value: T) -> T.ID { value.id }
        let note = OwnIDSchema.Note(id: "n-1", text: "t")
        #expect(identity(note) == "n-1")
        #expect(identity(Product(sku: "A-1", name: "Lamp")) is PersistentIdentifier)
    }
}
