import Foundation
import Testing
@testable import Vein

/// A save tells the process which models it wrote (`StoreChangeCenter`, what live queries follow): after
/// its commit, never before and never for a save that did not commit.
@Suite struct SaveAnnouncementTests {
    /// What the observer of one store heard: the models of each announcement, and the posts a reader on
    /// another connection counted while being told (so the rows were committed by then).
    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [(models: Set<String>, postsSeen: Int)] = []
        var announcements: [Set<String>] { lock.withLock { list.map(\.models) } }
        var postsSeen: [Int] { lock.withLock { list.map(\.postsSeen) } }
        func append(_ models: Set<String>, _ posts: Int) { lock.withLock { list.append((models, posts)) } }
    }

    static func listen(_ f: ContextFixture) -> (Heard, StoreObservation) {
        let heard = Heard()
        let reader = ObjectContext(store: f.store)
        let observation = StoreChangeCenter.shared.observe(storeAt: f.store.realPath) { change in
            heard.append(change.models, (try? reader.fetchCount(ObjectFetch(model: "Post"))) ?? -1)
        }
        return (heard, observation)
    }

    @Test func aSaveIsAnnouncedAfterItsCommitWithTheModelsItWrote() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let (heard, observation) = Self.listen(f)
        defer { observation.cancel() }
        let context = ObjectContext(store: f.store)

        let post = try context.insert("Post", ["title": .string("a"), "content": .string("c")])
        try context.save()
        #expect(heard.announcements == [["Post"]])
        #expect(heard.postsSeen == [1], "the observer reads the committed row")

        try context.insert("Person", ["name": .string("Ada")])
        try context.save()
        #expect(heard.announcements.last == ["Person"], "no link written: only its own model")

        // A link names both sides: the post's attachments list reads it too.
        try context.insert("Attachment", ["name": .string("shot.png"), "sizeMiB": .double(1), "post": .string(post.id)])
        try context.save()
        #expect(heard.announcements.last == ["Attachment", "Post"])

        try post.set("views", .int(3))
        try context.save()
        #expect(heard.announcements.last == ["Post"])

        // A delete cascades to attachments and clears the tags' links.
        try context.delete(post)
        try context.save()
        #expect(heard.announcements.last == ["Post", "Attachment", "Tag"])
        #expect(heard.announcements.count == 5)

        try context.save()
        #expect(heard.announcements.count == 5, "nothing to save: nothing announced")
    }

    @Test func insideATransactionTheAnnouncementWaitsForItsCommit() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let (heard, observation) = Self.listen(f)
        defer { observation.cancel() }
        let context = ObjectContext(store: f.store)

        try context.transaction {
            try context.insert("Post", ["title": .string("a"), "content": .string("c")])
            try context.save()
            try context.transaction {
                try context.insert("Tag", ["name": .string("swift")])
                try context.save()
            }
            #expect(heard.announcements.isEmpty, "not committed yet")
        }
        #expect(heard.announcements == [["Post", "Tag"]])
        #expect(heard.postsSeen == [1])

        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try context.transaction {
                try context.insert("Post", ["title": .string("b"), "content": .string("c")])
                try context.save()
                throw Abandon()
            }
        }
        #expect(heard.announcements.count == 1, "rolled back: nothing announced")
        // The next commit announces only its own work, not the rolled-back save's.
        try context.transaction {
            try context.insert("Person", ["name": .string("Ada")])
            try context.save()
        }
        #expect(heard.announcements.last == ["Person"])
    }

    @Test func aFailedSaveIsNotAnnounced() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let (heard, observation) = Self.listen(f)
        defer { observation.cancel() }
        let context = ObjectContext(store: f.store)
        try context.insert("Attachment", ["name": .string("same"), "sizeMiB": .double(1)])
        try context.save()
        try context.insert("Attachment", ["name": .string("same"), "sizeMiB": .double(2)])
        #expect(throws: ContextError.self) { try context.save() }
        #expect(heard.announcements == [["Attachment"]])
    }

    @Test func aCancelledObservationHearsNothing() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let (heard, observation) = Self.listen(f)
        #expect(StoreChangeCenter.shared.observerCount(storeAt: f.store.realPath) == 1)
        observation.cancel()
        #expect(StoreChangeCenter.shared.observerCount(storeAt: f.store.realPath) == 0)
        let context = ObjectContext(store: f.store)
        try context.insert("Tag", ["name": .string("swift")])
        try context.save()
        #expect(heard.announcements.isEmpty)
    }
}

/// A rollback tells the observers of its own context which models the discarded changes were of.
@Suite struct RollbackAnnouncementTests {
    @Test func aRollbackIsAnnouncedToItsContextsObserversOnly() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = ObjectContext(store: f.store), other = ObjectContext(store: f.store)
        let heard = SaveAnnouncementTests.Heard()
        let observation = StoreChangeCenter.shared.observeRollbacks(of: context) { heard.append($0.models, 0) }
        #expect(StoreChangeCenter.shared.rollbackObserverCount(of: context) == 1)

        context.rollback()
        #expect(heard.announcements.isEmpty, "nothing discarded: nothing announced")
        try context.insert("Person", ["name": .string("Ada")])
        context.rollback()
        #expect(heard.announcements == [["Person"]])
        try other.insert("Person", ["name": .string("Grace")])
        other.rollback()
        #expect(heard.announcements.count == 1, "another context's rollback is not this one's")

        observation.cancel()
        #expect(StoreChangeCenter.shared.rollbackObserverCount(of: context) == 0)
    }
}
