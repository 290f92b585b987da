import Foundation
import Testing
import Vein
@testable import VeinCore

/// `close()` merges the write-ahead log into the store and removes the `-wal`; what is used after it
/// throws `StoreError.closed`, and instances read what they hold.
@Suite struct ContainerCloseTests {
    static func wal(_ container: ModelContainer) -> String { container.store.path + "-wal" }

    @Test func closeRemovesTheWriteAheadLog() throws {
        let container = try ObjectLifetimeTests.blog()
        let wal = Self.wal(container)
        let reader = container.newContext()
        #expect(try reader.fetchCount(Post.self) == 1)
        #expect(FileManager.default.fileExists(atPath: wal))
        try container.close()
        #expect(!FileManager.default.fileExists(atPath: wal))
        try container.close()
    }

    @Test func whatNeedsTheStoreAfterCloseThrows() throws {
        let container = try ObjectLifetimeTests.blog()
        let context = container.newContext()
        let post = try #require(try context.fetch(Post.self).first)
        let attachment = try #require(try context.fetch(Attachment.self).first)
        let path = container.store.path
        try container.close()
        let expected = StoreError.closed(path)
        #expect(expected.description == "\(path) was closed (container.close()): open a new ModelContainer to use it again")
        #expect(throws: expected) { try container.context.fetch(Post.self) }
        #expect(throws: expected) { try container.newContext().fetchCount(Post.self) }
        #expect(throws: expected) { try container.migrate() }
        #expect(post.title == "first", "an instance keeps the values it read")
        #expect(post.attachments.isEmpty, "not read before the close: the store cannot tell them any more")
        #expect(attachment.name == "a.png")
        #expect(attachment.data == nil, "a lazy field not read before the close")
        #expect(throws: expected) { try attachment.value(of: \.data) }
        post.title = "after"
        #expect(post.title == "after")
        #expect(throws: expected) { try context.save() }
    }

    @Test func containersStillOpenAreClosedAtExit() throws {
        let container = try ObjectLifetimeTests.blog()
        #expect(OpenContainers.shared.contains(container), "the process's exit closes it")
        // What the exit runs, on a registry of this test's own (the process's closes every test's).
        let open = OpenContainers()
        open.add(container)
        #expect(FileManager.default.fileExists(atPath: Self.wal(container)))
        open.closeAll()
        #expect(!FileManager.default.fileExists(atPath: Self.wal(container)))
        #expect(throws: StoreError.closed(container.store.path)) { try container.context.fetch(Post.self) }
        #expect(!OpenContainers.shared.contains(container), "closed: forgotten")
    }
}

/// The exit itself, in a process of its own: a container kept open to the end leaves no `-wal`.
@Suite struct ContainerExitTests {
    @Test func aNormalExitClosesTheContainersStillOpen() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vein-exit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/blog.vein"
        await #expect(processExitsWith: .success) { [store = store as String] in
            let container = try ModelContainer(for: V0_0_1.self, at: store, appID: "com.example.blog",
                                               keyProvider: .keyFile(store + ".key"))
            container.context.insert(Post(title: "saved before exit", content: "c"))
            try container.context.save()
            guard FileManager.default.fileExists(atPath: store + "-wal") else { exit(2) }
            exit(0)  // as returning from main.swift does; `container` is never deinitialised
        }
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
        let reopened = try ModelContainer(for: V0_0_1.self, at: store, appID: "com.example.blog",
                                          keyProvider: .keyFile(store + ".key"))
        #expect(try reopened.context.fetch(Post.self).map(\.title) == ["saved before exit"])
    }
}
