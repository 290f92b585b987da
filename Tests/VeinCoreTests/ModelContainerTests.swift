import Foundation
import Testing
import Vein
import VeinCore

/// @Model objects through a container end to end: insert, save, fetch in another container, lazy fields,
/// relationships and their inverses, a store the engine (and so `vein info`) opens.
@Suite struct ModelContainerTests {
    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vein-core-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A key file beside the store: no Secret Service needed.
    static func keys(_ folder: String) -> KeyOptions {
        KeyOptions(keyFile: "\(folder)/blog.key", environment: [:], keyring: nil)
    }

    @Test func insertSaveAndFetchInAnotherContainer() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/blog.vein"
        let container = try ModelContainer(for: V0_0_1.self, at: path, appID: "com.example.blog", keyProvider: Self.keys(folder))

        let post = Post(title: "How to use Vein?", content: "It's very easy.")
        let shot = Attachment(name: "shot.png", fileType: .png, data: Data(repeating: 7, count: 2048))
        post.attachments = [shot]
        #expect(post.isInNoContext, "not in a context yet")
        container.context.insert(post)
        #expect(!post.isInNoContext && !shot.isInNoContext, "inserting a post inserts what it points to")
        #expect(shot.post === post, "the inverse is kept in step")
        post.content = "What did I tell you?"
        post.views += 3
        #expect(container.context.hasChanges)
        try container.context.save()
        #expect(!container.context.hasChanges)

        let reopened = try ModelContainer(for: V0_0_1.self, at: path, appID: "com.example.blog", keyProvider: Self.keys(folder))
        let posts = try reopened.context.fetch(Post.self)
        #expect(posts.map(\.title) == ["How to use Vein?"])
        #expect(posts.map(\.content) == ["What did I tell you?"])
        #expect(posts.map(\.views) == [3])
        #expect(posts.first?.publishedAt == nil)
        let attachments = try #require(posts.first?.attachments)
        #expect(attachments.map(\.name) == ["shot.png"])
        #expect(attachments.first?.fileType == .png)
        #expect(attachments.first?.post === posts.first, "one instance per row in a context")
        #expect(attachments.first?.data == Data(repeating: 7, count: 2048), "the lazy field, read on first access")
        #expect(try reopened.context.fetch(Post.self) .first === posts.first)
        #expect(try reopened.context.fetchCount(Attachment.self, where: "sizeMiB < 1") == 1)

        // The store is the engine's: what `vein info` opens, with the schema the app declares.
        let store = try Store.open(path, keys: Self.keys(folder))
        #expect(store.manifest.canonicalText == (try V0_0_1.manifest(appID: "com.example.blog").canonicalText))
        #expect(store.encryption.isEncrypted)
    }

    @Test func deleteCascadesThroughTheTypedContext() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try ModelContainer(for: V0_0_1.self, at: "\(folder)/blog.vein", appID: "com.example.blog",
                                           keyProvider: Self.keys(folder))
        let post = Post(title: "Gone", content: "soon")
        post.attachments = [Attachment(name: "a", fileType: .gif, data: Data()), Attachment(name: "b", fileType: .jpg, data: Data())]
        container.context.insert(post)
        try container.context.save()
        #expect(try container.context.fetchCount(Attachment.self) == 2)
        container.context.delete(post)
        try container.context.save()
        #expect(try container.newContext().fetchCount(Attachment.self) == 0)
    }

    @Test func aStoreAtAnotherSchemaIsRefused() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/blog.vein"
        _ = try ModelContainer(for: V0_0_1.self, at: path, appID: "com.example.blog", keyProvider: Self.keys(folder))
        let error = try #require(throws: ModelContainerError.self) {
            try ModelContainer(for: V0_0_2.self, at: path, appID: "com.example.blog", keyProvider: Self.keys(folder))
        }
        #expect(error.description == "\(path) is at schema 0.0.1, the app declares 0.0.2: open it with a migration plan (migration:) and call migrate()")
        #expect(try V0_0_2.manifest(appID: "a").model(named: "Note")?.columnNames == ["slug"], "@Transient is not stored")
    }
}

enum V0_0_2: VersionedSchema {
    static let version = ModelVersion(0, 0, 2)
    static let models: [any PersistentModel.Type] = [Note.self]
    @Model final class Note {
        @Unique var slug: String
        @Transient let label = "note"
        init(slug: String) { self.slug = slug }
    }
}
