import Foundation
import Testing
import VeinCore

private typealias Product = ShopSchema.Product
private typealias Review = ShopSchema.Review
private typealias Memo = ShopSchema.Memo

/// SwiftData's container names as its documentation writes them, each with its effect:
/// `ModelContainer(for: A.self, B.self)`, `ModelConfiguration`, `Schema([…])`, `Schema.Version`,
/// `versionIdentifier`, `ModelContainer(for:migrationPlan:)`, `autosaveEnabled`.
@Suite struct SwiftDataContainerTests {
    @Test func aContainerInMemoryForModelClasses() throws {
        let container = try ModelContainer(for: Product.self, Review.self, Memo.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        container.mainContext.insert(Product(sku: "A-1", name: "Lamp"))
        try container.mainContext.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Product>()).map(\.name) == ["Lamp"])
        #expect(container.store.path.contains("/vein-memory-"))
    }

    /// The models' schema at 1.0.0 is ShopSchema's: the store opens with either.
    @Test func aContainerAtAURLIsTheSchemasStore() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/shop.vein"), appID: "com.example.shop",
                                               keyProvider: .keyFile("\(folder)/shop.key"))
        let container = try ModelContainer(for: Schema([Product.self, Review.self, Memo.self]), configurations: configuration)
        container.mainContext.insert(Product(sku: "A-1", name: "Lamp"))
        try container.mainContext.save()
        try container.close()
        let reopened = try ModelContainer(for: ShopSchema.self, at: "\(folder)/shop.vein", appID: "com.example.shop",
                                          keyProvider: .keyFile("\(folder)/shop.key"))
        #expect(try reopened.mainContext.fetch(FetchDescriptor<Product>()).map(\.sku) == ["A-1"])
        #expect(try Schema(versionedSchema: ShopSchema.self).manifest(appID: "a").sha256
                == (try ShopSchema.manifest(appID: "a").sha256))
    }

    /// SwiftData's version name: a schema that declares `versionIdentifier` has that `version`.
    @Test func versionIdentifierIsTheVersion() throws {
        #expect(NoteSchema.version == ModelVersion(2, 1, 0))
        #expect(ShopSchema.versionIdentifier == Schema.Version(1, 0, 0))
        #expect(try NoteSchema.manifest(appID: "a").version.description == "2.1.0")
        #expect(Schema([Memo.self], version: Schema.Version(3, 0, 0)).version.description == "3.0.0")
    }

    /// As SwiftData: the container migrates when it is made.
    @Test func aContainerWithAMigrationPlanMigratesTheStore() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: "\(folder)/blog.vein"), appID: "com.example.blog",
                                               keyProvider: .keyFile("\(folder)/blog.key"))
        let first = try ModelContainer(for: V0_0_1.self, migrationPlan: FirstBlogMigration.self, configurations: configuration)
        first.mainContext.insert(Post(title: "Hello", content: "c"))
        try first.mainContext.save()
        try first.close()
        let second = try ModelContainer(for: BlogV0_0_2.self, migrationPlan: BlogMigration.self, configurations: configuration)
        #expect(!second.needsMigration)
        #expect(try second.mainContext.fetch(FetchDescriptor<BlogV0_0_2.Post>()).map(\.summary) == ["hello"])
        #expect(throws: ModelContainerError.schemaNotLastInPlan(schema: "V0_0_1", plan: "BlogMigration")) {
            try ModelContainer(for: V0_0_1.self, migrationPlan: BlogMigration.self, configurations: configuration)
        }
    }

    /// With no url: `default.vein` in the app's folder of the user's data folder.
    @Test func theDefaultStoreIsInTheUsersDataFolder() {
        #expect(ModelConfiguration.defaultFolder(appID: "notes", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/a"])
                == "/data/notes")
        #expect(ModelConfiguration.defaultFolder(appID: "notes", environment: ["HOME": "/home/a"]) == "/home/a/.local/share/notes")
        #expect(ModelConfiguration.defaultFolder(appID: "notes", environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/a"])
                == "/home/a/.local/share/notes", "a relative XDG_DATA_HOME is ignored, as the specification says")
        #expect(ModelConfiguration().resolvedAppID == ProcessInfo.processInfo.processName)
        #expect(ModelConfiguration(appID: "com.example.notes").resolvedAppID == "com.example.notes")
    }

    /// `ModelConfiguration(for: User.self, isStoredInMemoryOnly: true)`, as "SwiftData outside SwiftUI" writes
    /// it; a configuration naming a model its container lacks is refused; a name names the default file.
    @Test func aConfigurationForModelTypes() throws {
        let container = try ModelContainer(for: Memo.self, configurations: ModelConfiguration(for: Memo.self, isStoredInMemoryOnly: true))
        #expect(container.store.path.contains("/vein-memory-"))
        let refused = #expect(throws: ModelContainerError.self) {
            try ModelContainer(for: Memo.self, configurations: ModelConfiguration(for: Memo.self, Product.self, isStoredInMemoryOnly: true))
        }
        #expect(refused?.description
                == "the configuration names Product, which the container's schema does not list: add it to ModelContainer(for: …)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vein-config-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try ModelConfiguration("Archive", appID: "notes").storePath(environment: ["XDG_DATA_HOME": folder])
                == folder + "/notes/Archive.vein")
        #expect(try ModelConfiguration(appID: "notes").storePath(environment: ["XDG_DATA_HOME": folder]) == folder + "/notes/default.vein")
    }

    /// Vein never saves on its own: the switch is there for code that sets it.
    @Test func autosaveEnabledSavesNothing() throws {
        let container = try ModelContainer(for: Memo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        #expect(!context.autosaveEnabled)
        context.autosaveEnabled = true
        #expect(context.autosaveEnabled)
        context.insert(Memo(text: "unsaved"))
        #expect(context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Memo>()) == 0)
    }
}

/// A schema written with SwiftData's requirement name.
enum NoteSchema: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 1, 0) }
    static let models: [any PersistentModel.Type] = [Note.self]

    @Model final class Note {
        var text: String
        init(text: String) { self.text = text }
    }
}
