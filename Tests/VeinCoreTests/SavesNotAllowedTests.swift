import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product

/// SwiftData's `ModelConfiguration(…, allowsSave: false)`: the container reads the store and never writes
/// it. It creates no missing store and migrates none; every save of its contexts throws, and leaves the
/// context as it was.
@Suite struct SavesNotAllowedTests {
    static let savesNotAllowed = "the container's configuration does not allow saves (ModelConfiguration(allowsSave: false)): "
        + "its contexts read the store and never write it; make the container with allowsSave: true to save"

    func configuration(_ folder: String, _ file: String = "shop.vein", allowsSave: Bool) -> ModelConfiguration {
        ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/\(file)"), allowsSave: allowsSave, appID: "com.example.shop",
                           keyProvider: .keyFile("\(folder)/shop.key"))
    }

    /// A store holding one product, written by a container that may save, and closed.
    func shop() throws -> String {
        let folder = try ModelContainerTests.temporaryFolder()
        let writer = try ModelContainer(for: Product.self, ShopSchema.Review.self, ShopSchema.Memo.self, configurations: configuration(folder, allowsSave: true))
        writer.mainContext.insert(Product(sku: "A-1", name: "Lamp"))
        try writer.mainContext.save()
        try writer.close()
        return folder
    }

    @Test func itReadsAndEverySaveThrowsLeavingTheContextAsItWas() throws {
        let folder = try shop()
        let before = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/shop.vein"))
        #expect(ModelConfiguration().allowsSave, "SwiftData's default")
        let container = try ModelContainer(for: Product.self, ShopSchema.Review.self, ShopSchema.Memo.self, configurations: configuration(folder, allowsSave: false))
        let context = container.mainContext
        #expect(try context.fetch(FetchDescriptor<Product>()).map(\.name) == ["Lamp"])

        context.insert(Product(sku: "B-2", name: "Chair"))
        let refused = #expect(throws: ModelContainerError.savesNotAllowed) { try context.save() }
        #expect(refused.map { "\($0)" } == Self.savesNotAllowed)
        #expect(context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Product>()).map(\.name) == ["Lamp", "Chair"], "the insert is still pending")
        #expect(throws: ModelContainerError.savesNotAllowed) { try context.transaction {} }
        // Every context of the container, with changes or without.
        #expect(throws: ModelContainerError.savesNotAllowed) { try ModelContext(container).save() }
        #expect(throws: ModelContainerError.savesNotAllowed) { try container.newContext().save() }
        try container.migrate()  // nothing to do, and nothing written
        try container.close()

        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/shop.vein")) == before)
        let reader = try ModelContainer(for: Product.self, ShopSchema.Review.self, ShopSchema.Memo.self, configurations: configuration(folder, allowsSave: true))
        #expect(try reader.mainContext.fetch(FetchDescriptor<Product>()).map(\.name) == ["Lamp"])
    }

    @Test func aMissingStoreIsNotCreated() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let refused = #expect(throws: ModelContainerError.notCreatedWithoutSaves(path: "\(folder)/none.vein")) {
            try ModelContainer(for: Product.self, ShopSchema.Review.self, ShopSchema.Memo.self, configurations: configuration(folder, "none.vein", allowsSave: false))
        }
        #expect(refused.map { "\($0)" } == "\(folder)/none.vein does not exist, and a configuration that does not allow saves "
                + "(allowsSave: false) does not create it: create it with allowsSave: true first, or check the path")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/none.vein"))
        // Nor the default store's folder.
        let data = "\(folder)/data"
        #expect(try ModelConfiguration(allowsSave: false, appID: "notes").storePath(environment: ["XDG_DATA_HOME": data]) == "\(data)/notes/default.vein")
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    @Test func aStoreThatNeedsAMigrationIsNotMigrated() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        func blog(allowsSave: Bool) -> ModelConfiguration {
            ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/blog.vein"), allowsSave: allowsSave, appID: "com.example.blog",
                               keyProvider: .keyFile("\(folder)/blog.key"))
        }
        let first = try ModelContainer(for: V0_0_1.self, migrationPlan: FirstBlogMigration.self, configurations: blog(allowsSave: true))
        first.mainContext.insert(Post(title: "Hello", content: "c"))
        try first.mainContext.save()
        try first.close()

        let path = "\(folder)/blog.vein"
        let refused = #expect(throws: ModelContainerError.self) {
            try ModelContainer(for: BlogV0_0_2.self, migrationPlan: BlogMigration.self, configurations: blog(allowsSave: false))
        }
        #expect(refused.map { "\($0)" } == "\(path) is at schema 0.0.1, the app declares 0.0.2, and a configuration that does not "
                + "allow saves (allowsSave: false) does not migrate it: migrate it with allowsSave: true first")
        // At the app's version it opens, and reads.
        let reader = try ModelContainer(for: V0_0_1.self, migrationPlan: FirstBlogMigration.self, configurations: blog(allowsSave: false))
        #expect(try reader.mainContext.fetch(FetchDescriptor<Post>()).map(\.title) == ["Hello"])
    }
}
