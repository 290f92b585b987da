import Foundation
import Testing
@testable import Vein

/// An insert with relationship values, and a set of several values at once, are all or nothing even when a
/// link fails after every value was checked: here the post an attachment leaves is not loaded and its row
/// holds a damaged cell, so moving the attachment fails while reading it. What the earlier links changed is
/// put back and the new object is not left pending (before, the loose attachment kept naming the new post, and
/// the post stayed pending, half-linked; a set of several values stayed half-applied).
@Suite struct InsertLinksAtomicityTests {
    /// A store with a post whose `views` cell is damaged, an attachment on it, and a loose attachment.
    private func damagedOwner() throws -> (ContextFixture, damagedPostID: String, onDamaged: String, loose: String) {
        let f = try ContextFixture()
        let writer = ObjectContext(store: f.store)
        let old = try writer.insert("Post", ["title": .string("old"), "content": .string("c")])
        let onDamaged = try writer.insert("Attachment", ["name": .string("on-old.png"), "sizeMiB": .double(1), "post": .string(old.id)])
        let loose = try writer.insert("Attachment", ["name": .string("loose.png"), "sizeMiB": .double(2)])
        try writer.save()
        try f.store.database.execute("PRAGMA ignore_check_constraints = ON; UPDATE Post SET views = 'abc' WHERE _id = '\(old.id)'; "
                                     + "PRAGMA ignore_check_constraints = OFF")
        return (f, old.id, onDamaged.id, loose.id)
    }

    @Test func anInsertWhoseLaterLinkFailsLeavesNothing() throws {
        let (f, _, onDamaged, loose) = try damagedOwner()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let looseObject = try #require(try context.object("Attachment", id: loose))
        _ = try #require(try context.object("Attachment", id: onDamaged))
        #expect(throws: DamagedValueError.self) {
            try context.insert("Post", ["title": .string("new"), "content": .string("c"),
                                        "attachments": .array([.string(loose), .string(onDamaged)])])
        }
        #expect(try looseObject["post"] == .null, "the loose attachment is put back")
        #expect(!context.hasChanges, "the post is not left pending")
        #expect(try context.fetchCount(ObjectFetch(model: "Post", predicate: f.predicate("title == \"new\"", "Post"))) == 0)
        try context.save()
    }

    @Test func aSetOfSeveralValuesWhoseLaterLinkFailsLeavesTheObjectAsItWas() throws {
        let (f, _, onDamaged, loose) = try damagedOwner()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("fresh"), "content": .string("c")])
        try context.save()
        let looseObject = try #require(try context.object("Attachment", id: loose))
        _ = try #require(try context.object("Attachment", id: onDamaged))
        #expect(throws: DamagedValueError.self) {
            try context.set(post, all: [("title", .string("changed")), ("attachments", .array([.string(loose), .string(onDamaged)]))])
        }
        #expect(try post["title"] == .string("fresh"))
        #expect(try post.related("attachments").isEmpty)
        #expect(try looseObject["post"] == .null)
        #expect(!context.hasChanges)
    }

    /// The pending link changes an object had before a set that fails are there after it, exactly: the
    /// set logs what undoes its own changes instead of copying the object's (`LinkChange` checkpoints).
    @Test func pendingLinksBeforeAFailedSetAreKeptExactly() throws {
        let (f, _, onDamaged, loose) = try damagedOwner()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("fresh"), "content": .string("c")])
        try context.save()
        let linked = try context.insert("Attachment", ["name": .string("linked.png"), "sizeMiB": .double(1), "post": .string(post.id)])
        let looseObject = try #require(try context.object("Attachment", id: loose))
        _ = try #require(try context.object("Attachment", id: onDamaged))
        let before = context.changes()
        #expect(throws: DamagedValueError.self) {
            try context.set(post, all: [("attachments", .array([.string(linked.id), .string(loose), .string(onDamaged)]))])
        }
        #expect(context.changes() == before)
        #expect(try post.related("attachments").map(\.id) == [linked.id])
        #expect(try looseObject["post"] == .null)
        try context.save()
        let reader = try f.context()
        #expect(try reader.object("Post", id: post.id)?.related("attachments").map(\.id) == [linked.id])
    }
}
