import Foundation
import Testing
import VeinCore

/// `at: nil`: a store that lives as long as its container and needs no key.
@Suite struct InMemoryContainerTests {
    @Test func anInMemoryContainerWorksAndLeavesNothingBehind() throws {
        var folder = ""
        do {
            let container = try ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: nil,
                                               appID: "com.example.blog")
            folder = URL(fileURLWithPath: container.store.path).deletingLastPathComponent().path
            let post = Post(title: "in memory", content: "gone after")
            container.context.insert(post)
            try container.context.save()
            let reader = container.newContext()
            #expect(try reader.fetch(Post.self).map(\.title) == ["in memory"])
            #expect(!container.store.encryption.isEncrypted)
            let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
            #expect(mode == 0o700, "others cannot read a plaintext store in it")
            // Another in-memory container is another store.
            let other = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
            #expect(try other.context.fetchCount(Post.self) == 0)
        }
        #expect(!folder.isEmpty && !FileManager.default.fileExists(atPath: folder))
    }
}
