import Foundation
import Testing
import VeinCore

/// `context.insert(model)` is all or nothing in the context: when any row or link of what it inserts
/// fails, nothing of it stays pending, objects already in the context are not linked to it, and every
/// instance keeps its pending values and links, so the caller can fix the link and insert again.
@Suite struct InsertionAtomicityTests {
    /// An instance pending in another context (not saved): `context` has no such row to link to. The
    /// other context is returned too, to keep it open.
    static func foreign<T: PersistentModel>(_ model: T, _ container: ModelContainer) throws -> (T, VeinCore.ModelContext) {
        let other = container.newContext()
        try other.insert(model)
        return (model, other)
    }

    @Test func aFailedLinkLeavesTheRootOutOfTheContextWithItsValues() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let (elsewhere, other) = try Self.foreign(Post(title: "elsewhere", content: ""), container)
        let shot = Attachment(name: "shot.png", fileType: .png, data: Data([1, 2, 3]))
        shot.post = elsewhere
        let context = container.context

        #expect(throws: ContextError.self) { try context.insert(shot) }
        #expect(!context.hasChanges, "nothing of the failed insert is pending")
        #expect(shot.id == nil, "the instance is in no context")
        #expect(shot.name == "shot.png" && shot.data == Data([1, 2, 3]), "it keeps its values")
        #expect(shot.post === elsewhere, "and its link")
        #expect(elsewhere.attachments.isEmpty, "the other side was not touched")
        #expect(other.hasChanges)

        shot.post = nil
        try context.insert(shot)
        try context.save()
        #expect(try context.fetchCount(Attachment.self) == 1)
    }

    /// The first link of the batch (the post's list, which sets the inverse of an attachment already in
    /// the context) can be made; the second (an attachment's post in another context) cannot. Neither
    /// is made: every link is checked before the first one changes anything.
    @Test func aFailedLinkLeavesNoInstanceOfTheBatchInTheContextAndNoObjectLinkedToOne() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let context = container.context
        let kept = Attachment(name: "kept.png", fileType: .png, data: Data([7]))
        try context.insert(kept)
        try context.save()
        let (elsewhere, _) = try Self.foreign(Post(title: "elsewhere", content: ""), container)
        let post = Post(title: "new", content: "body")
        let member = Attachment(name: "a.png", fileType: .png, data: Data([9]))
        let stray = Attachment(name: "stray.png", fileType: .png, data: Data([8]))
        post.attachments = [member, kept, stray]
        stray.post = elsewhere  // the failing link

        #expect(throws: ContextError.self) { try context.insert(post) }
        #expect(!context.hasChanges)
        #expect(post.id == nil && member.id == nil && stray.id == nil)
        #expect(post.title == "new" && post.content == "body" && member.name == "a.png")
        #expect(post.attachments.map(\.name) == ["a.png", "kept.png", "stray.png"])
        #expect(kept.post == nil, "an object already in the context is not linked to a discarded one")
        #expect(try context.fetchCount(Post.self) == 0)

        post.attachments = [member, kept]
        try context.insert(post)
        try context.save()
        #expect(try context.fetchCount(Attachment.self) == 2)
        #expect(member.post === post && kept.post === post)
        #expect(stray.id == nil)
    }
}
