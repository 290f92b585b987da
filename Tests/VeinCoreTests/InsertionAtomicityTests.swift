import Foundation
import Testing
import Vein
import VeinCore

/// `context.insert(model)` is all or nothing in the context: when any row or link of what it inserts
/// fails, nothing of it stays pending, objects already in the context are not linked to it, and every
/// instance keeps its pending values and links, so the caller can fix the link and insert again. The
/// insert does not throw (SwiftData's does not): the next `save` throws its error and writes nothing.
@Suite struct InsertionAtomicityTests {
    /// An instance pending in another context (not saved): `context` has no such row to link to. The
    /// other context is returned too, to keep it open.
    static func foreign<T: PersistentModel>(_ model: T, _ container: ModelContainer) throws -> (T, VeinCore.ModelContext) {
        let other = container.newContext()
        other.insert(model)
        return (model, other)
    }

    @Test func aFailedLinkLeavesTheRootOutOfTheContextWithItsValues() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let (elsewhere, other) = try Self.foreign(Post(title: "elsewhere", content: ""), container)
        let shot = Attachment(name: "shot.png", fileType: .png, data: Data([1, 2, 3]))
        shot.post = elsewhere
        let context = container.context
        let otherChanges = other.engine.changes()
        let elsewhereID = elsewhere.persistentModelID.key

        context.insert(shot)
        #expect(context.engine.changes().isEmpty, "nothing of the failed insert is pending")
        let error = context.deferredFailure(ContextError.self)
        #expect(error == .danglingReference(model: "Attachment", field: "post", id: elsewhereID))
        #expect(error?.description == "Attachment.post: no row with id \(elsewhereID)")
        #expect(try context.fetchIdentifiers(FetchDescriptor<Attachment>()).isEmpty)
        #expect(shot.isInNoContext, "the instance is in no context")
        #expect(shot.name == "shot.png" && shot.data == Data([1, 2, 3]), "it keeps its values")
        #expect(shot.post === elsewhere, "and its link")
        #expect(other.engine.changes() == otherChanges, "the other context was not touched")

        shot.post = nil
        context.insert(shot)
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
        context.insert(kept)
        try context.save()
        // Kept open to the end: the post is pending in a live context, not in one already closed.
        let (elsewhere, other) = try Self.foreign(Post(title: "elsewhere", content: ""), container)
        defer { withExtendedLifetime(other) {} }
        let post = Post(title: "new", content: "body")
        let member = Attachment(name: "a.png", fileType: .png, data: Data([9]))
        let stray = Attachment(name: "stray.png", fileType: .png, data: Data([8]))
        post.attachments = [member, kept, stray]
        stray.post = elsewhere  // the failing link

        context.insert(post)
        #expect(context.engine.changes().isEmpty)
        let error = context.deferredFailure(ContextError.self)
        #expect(error == .danglingReference(model: "Attachment", field: "post", id: elsewhere.persistentModelID.key))
        #expect(post.isInNoContext && member.isInNoContext && stray.isInNoContext)
        #expect(post.title == "new" && post.content == "body" && member.name == "a.png")
        #expect(post.attachments.map(\.name) == ["a.png", "kept.png", "stray.png"])
        #expect(kept.post == nil, "an object already in the context is not linked to a discarded one")
        #expect(try context.fetchCount(Post.self) == 0)

        post.attachments = [member, kept]
        context.insert(post)
        try context.save()
        #expect(try context.fetchCount(Attachment.self) == 2)
        #expect(member.post === post && kept.post === post)
        #expect(stray.isInNoContext)
    }

    /// A link that fails after an earlier link of the same insert changed objects already in the
    /// context: the post's list links `kept2` (its inverse is set to the new post), then `keptB` (its post
    /// until now, not loaded yet, is read and lets it go), then `keptA`, whose post until now must let it
    /// go too, and that post's row (not loaded yet) holds a damaged cell. The check of every link passed;
    /// the failure comes from reading the store half-way. `kept2`, `keptB` and its post are put back as
    /// they were, the context's pending work stays as it was, and a save writes it.
    @Test func aLinkFailingAfterAnotherChangedAnObjectInTheContextPutsThatObjectBack() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let old = Post(title: "old", content: "")
        let keptA = Attachment(name: "keptA.png", fileType: .png, data: Data([1]))
        keptA.post = old
        container.context.insert(keptA)
        let keptB = Attachment(name: "keptB.png", fileType: .png, data: Data([4]))
        keptB.post = Post(title: "oldB", content: "")
        container.context.insert(keptB)
        container.context.insert(Attachment(name: "kept2.png", fileType: .png, data: Data([2])))
        try container.context.save()
        let oldID = old.persistentModelID.key
        try container.store.database.execute("PRAGMA ignore_check_constraints = ON; UPDATE Post SET views = 'abc' WHERE _id = '\(oldID)'; "
                                             + "PRAGMA ignore_check_constraints = OFF")
        // A context that has read the attachments, not the old post.
        let context = container.newContext()
        let attachments = try context.fetch(Attachment.self)
        let keptA2 = try #require(attachments.first { $0.name == "keptA.png" })
        let kept2 = try #require(attachments.first { $0.name == "kept2.png" })
        let keptB2 = try #require(attachments.first { $0.name == "keptB.png" })
        kept2.name = "renamed.png"  // pending work on the object the failed link changes
        context.insert(Post(title: "unrelated", content: ""))
        let changesBefore = context.engine.changes()
        let kept2Object = try #require(kept2._$backing.object), keptAObject = try #require(keptA2._$backing.object),
            keptBObject = try #require(keptB2._$backing.object)
        func state(_ object: ModelObject) throws -> [Value] { try ["name", "fileType", "post"].map { try object[$0] } }
        let kept2Before = try state(kept2Object), keptABefore = try state(keptAObject), keptBBefore = try state(keptBObject)

        let post = Post(title: "new", content: "body")
        let member = Attachment(name: "member.png", fileType: .png, data: Data([3]))
        post.attachments = [member, kept2, keptB2, keptA2]
        context.insert(post)

        #expect(try state(kept2Object) == kept2Before, "the inverse set by the first link is put back")
        #expect(try state(keptAObject) == keptABefore)
        #expect(try state(keptBObject) == keptBBefore)
        #expect(context.engine.changes() == changesBefore, "the pending work is as it was, no more")
        #expect(post.isInNoContext && member.isInNoContext)
        #expect(post.attachments.map(\.name) == ["member.png", "renamed.png", "keptB.png", "keptA.png"], "the instance keeps its links")
        #expect(try context.fetchCount(Post.self, where: #"title == "new""#) == 0, "no discarded post is found")
        #expect(try context.fetchCount(Attachment.self) == 3, "no discarded attachment is found")

        #expect(context.deferredFailure(DamagedValueError.self) != nil, "the save reports the failed insert and writes nothing")
        #expect(try container.newContext().fetchCount(Post.self, where: #"title == "unrelated""#) == 0)
        #expect(context.engine.changes() == changesBefore, "the pending work stays for the next save")
        try context.save()
        let reader = container.newContext()
        #expect(try reader.fetchCount(Post.self, where: #"title == "unrelated""#) == 1)
        let saved = try reader.fetch(Attachment.self).map(\.name).sorted()
        #expect(saved == ["keptA.png", "keptB.png", "renamed.png"])
        let savedB = try #require(try reader.fetch(Attachment.self, where: #"name == "keptB.png""#).first)
        #expect(savedB.post?.title == "oldB" && savedB.post?.attachments.map(\.name) == ["keptB.png"])
        #expect(try #require(try reader.fetch(Attachment.self, where: #"name == "renamed.png""#).first).post == nil)
    }

    /// A row that fails part-way through an insert (a member with a value no cell holds): the rows made
    /// before it are discarded, and every instance keeps its pending values and links. (A required value
    /// never given cannot fail here: an initializer that leaves one unassigned does not compile.)
    @Test func aRowFailingPartWayLeavesNothingOfTheBatchAndEveryInstanceItsValues() throws {
        let container = try ModelContainer(for: DraftSchema.self, at: nil, appID: "com.example.shelf")
        let context = container.context
        let shelf = DraftSchema.Shelf(label: "fiction")
        let first = DraftSchema.Book(title: "first")
        first.pages = 10
        let unfinished = DraftSchema.Book(title: "unfinished")
        unfinished.pages = .nan
        // Members are inserted last to first: `first` is made, then `unfinished` fails.
        shelf.books = [unfinished, first]

        context.insert(shelf)
        #expect(context.engine.changes().isEmpty)
        let error = context.deferredFailure(ContextError.self)
        #expect(error?.description == "Book.pages takes a finite Double, not NaN")
        #expect(try context.fetchCount(DraftSchema.Book.self) == 0 && context.fetchCount(DraftSchema.Shelf.self) == 0)
        #expect(shelf.isInNoContext && first.isInNoContext && unfinished.isInNoContext)
        #expect(shelf.label == "fiction" && first.title == "first" && first.pages == 10 && unfinished.title == "unfinished")
        #expect(shelf.books.map(\.title) == ["unfinished", "first"])

        unfinished.pages = 3
        context.insert(shelf)
        try context.save()
        #expect(try context.fetchCount(DraftSchema.Book.self) == 2)
        #expect(shelf.books.map(\.title) == ["unfinished", "first"] && first.shelf === shelf)
    }

    /// A book's pages can be given a value no cell holds (NaN).
    enum DraftSchema: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Shelf.self, Book.self]

        @Model final class Shelf {
            var label: String
            @Relationship(inverse: \Book.shelf, deleteRule: .cascade)
            var books: [Book] = []
            init(label: String) { self.label = label }
        }

        @Model final class Book {
            @Relationship var shelf: Shelf?
            var title: String
            var pages: Double = 0
            init(title: String) { self.title = title }
        }
    }
}
