import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product

/// A fetch in one context shows what another context (a background thread's) saved, in the instances
/// it already holds, and their next change saves without a conflict.
@Suite struct RefreshOnFetchTests {
    @Test func aFetchShowsAnotherContextsSaveInTheHeldInstance() throws {
        let container = try ModelConveniencesTests.shop()
        let main = container.context
        let lamp = Product(sku: "A-1", name: "Lamp")
        main.insert(lamp)
        try main.save()

        let background = container.newContext()
        try #require(try background.fetch(Product.self).first).price = 25
        try background.save()

        let fetched = try main.fetch(Product.self)
        #expect(fetched.first === lamp && lamp.price == 25)
        lamp.name = "Desk lamp"
        try main.save()
        #expect(try background.fetch(Product.self).map { "\($0.name) \($0.price)" } == ["Desk lamp 25"], "its fetch refreshes too")
    }
}
