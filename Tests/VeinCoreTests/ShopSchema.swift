import Foundation
import VeinCore

/// Models with `@Unique` fields (upsert finds its row by one), and one without.
enum ShopSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Product.self, Review.self, Memo.self]

    @Model
    final class Product {
        @Unique var sku: String
        @Unique var slug: String?
        var name: String
        var price: Int = 0
        var note: String?
        var color: String? = nil
        var weight: Double = 0

        @Relationship(inverse: \Review.product, deleteRule: .cascade)
        var reviews: [Review] = []

        init(sku: String, slug: String? = nil, name: String) {
            self.sku = sku
            self.slug = slug
            self.name = name
        }
    }

    @Model
    final class Review {
        @Relationship var product: Product?
        var stars: Int

        init(stars: Int) { self.stars = stars }
    }

    @Model
    final class Memo {
        var text: String
        init(text: String) { self.text = text }
    }
}
