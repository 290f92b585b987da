import Foundation
import Testing
import Vein
import VeinCore

/// Instances keep their context (and its connection) alive, as SwiftData's models keep `modelContext`;
/// nothing cycles, so a context and its instances go together once the app holds none of them.
@Suite struct ObjectLifetimeTests {
    struct Weak<Object: AnyObject> { weak var object: Object? }

    static func blog() throws -> ModelContainer {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let post = Post(title: "first", content: "c")
        container.context.insert(post)
        post.attachments = [Attachment(name: "a.png", fileType: .png, data: Data([1, 2]))]
        try container.context.save()
        return container
    }

    /// The "SwiftData outside SwiftUI" pattern: a context made per call.
    static func read(_ container: ModelContainer) throws -> [Post] {
        let context = container.newContext()
        return try context.fetch(Post.self)
    }

    @Test func instancesFromAContextMadePerCallStayReadable() throws {
        let container = try Self.blog()
        let post = try #require(try Self.read(container).first)
        #expect(post.title == "first")
        let attachment = try #require(post.attachments.first)
        #expect(attachment.data == Data([1, 2]), "a lazy field, read from the store after the function returned")
        #expect(attachment.post === post)
        post.title = "changed"
        #expect(post.title == "changed")
    }

    @Test func aContextGoesWithTheLastInstanceItGaveOut() throws {
        let container = try Self.blog()
        var context = Weak<ObjectContext>()
        var post: Post?
        do {
            let made = container.newContext()
            context.object = made.engine
            post = try made.fetch(Post.self).first
            _ = post?.attachments.first?.name
        }
        #expect(context.object != nil, "the instance keeps it")
        #expect(post?.title == "first")
        post = nil
        #expect(context.object == nil)
    }

    @Test func aContextWithUnsavedInsertsGoesWhenTheAppLetsGo() throws {
        let container = try Self.blog()
        var context = Weak<ObjectContext>()
        var inserted = Weak<Post>()
        do {
            let made = container.newContext()
            context.object = made.engine
            let post = Post(title: "never saved", content: "c")
            made.insert(post)
            inserted.object = post
        }
        #expect(context.object == nil && inserted.object == nil)
        #expect(try container.context.fetchCount(Post.self) == 1)
    }

    @Test func aThousandContextsMadePerCallAreFreed() throws {
        let container = try Self.blog()
        var contexts: [Weak<ObjectContext>] = []
        for _ in 0..<1000 {
            let context = container.newContext()
            contexts.append(Weak(object: context.engine))
            let posts = try context.fetch(Post.self)
            #expect(posts.first?.attachments.count == 1)
        }
        #expect(contexts.filter { $0.object != nil }.count == 0)
    }

    @Test func aDeletedInstanceReadsItsLastValuesAndAWriteToItFailsTheNextSave() throws {
        let container = try Self.blog()
        let context = container.newContext()
        let post = try #require(try context.fetch(Post.self).first)
        let id = post.persistentModelID.key
        context.delete(post)
        #expect(post.title == "first")
        #expect(post.attachments.isEmpty)
        post.title = "too late"
        #expect(post.title == "first", "the write was not made")
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.description == "Post.title was set on Post \(id) after it was deleted or rolled back; nothing was saved: "
                + "fetch the row again to change it")
        #expect(try container.newContext().fetchCount(Post.self) == 1, "the failed save wrote nothing")
        try context.save()
        #expect(try container.newContext().fetchCount(Post.self) == 0, "the delete, saved next")
    }

    @Test func aRolledBackInstanceReadsItsLastValues() throws {
        let container = try Self.blog()
        let context = container.newContext()
        let post = Post(title: "draft", content: "c")
        let attachment = Attachment(name: "b.png", fileType: .png, data: Data())
        context.insert(post)
        post.attachments = [attachment]
        #expect(attachment.post === post)
        context.rollback()
        #expect(post.title == "draft")
        #expect(post.attachments.isEmpty && attachment.post == nil)
        attachment.name = "c.png"
        #expect(throws: ContextError.writeToDeleted(model: "Attachment", id: attachment.persistentModelID.key, field: "name")) { try context.save() }
        #expect(!context.hasChanges)
        try context.save()
    }
}
