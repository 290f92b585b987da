import Foundation
import Testing
@testable import VeinCore
private typealias Product = ShopSchema.Product

/// The SwiftData helper library's `@CRUD` spellings: `Person.fetch(predicate:sort:)`, `fetchOne` and
/// `Person.upsert(_:)`, the context optional (`ModelContainer.default`'s without one).
/// (`person.pets(filter:sort:)` is a renamed spelling: VeinMacroTests checks its declaration.)
@Suite(.serialized) struct HelperSpellingsTests {
    @Test func withoutAContextTheDefaultContainersIsUsed() throws {
        let container = try ModelContainer(for: ShopSchema.self, at: nil, appID: "com.example.shop")
        ModelContainer.default = container
        defer { ModelContainer.default = nil }

        let kept = try Product.upsert(Product(sku: "A-1", name: "Lamp"))
        #expect(!container.mainContext.hasChanges, "written when it returns")
        let again = try Product.upsert(Product(sku: "A-1", name: "Desk lamp"))
        #expect(again === kept)
        try Product.upsert(Product(sku: "B-2", name: "Chair"))

        let reader = container.newContext()
        #expect(try Product.fetch(sort: [SortDescriptor(\.sku)], modelContext: reader).map(\.name) == ["Desk lamp", "Chair"])
        #expect(try Product.fetch(predicate: #Predicate { $0.sku == "B-2" }).map(\.name) == ["Chair"])
        #expect(try Product.fetchOne(sort: [SortDescriptor(\.name)])?.name == "Chair")
    }

    @Test func withNoDefaultContainerTheErrorSaysWhatToDo() throws {
        ModelContainer.default = nil
        #expect(throws: ModelConvenienceError.noDefaultContainer(method: "fetch(predicate:sort:)")) { try Product.fetch() }
        #expect(ModelConvenienceError.noDefaultContainer(method: "upsert(_:)").description
            == "upsert(_:): no context given and no default container; set ModelContainer.default = container where the app "
            + "makes its container, or pass modelContext:")
    }
}
