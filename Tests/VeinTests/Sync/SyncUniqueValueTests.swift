import Foundation
import Testing
@testable import Vein

/// A unique value claimed on two replicas (docs/sync.md#unique-values): the earlier claim stays, the later
/// row is set aside whole (fields, links, what named it), nothing is lost, and it comes back with all of
/// it when its value is free, on every replica alike.
@Suite struct SyncUniqueValueTests {
    /// Two replicas that start with one tag, with what these tests ask of them.
    final class Pair {
        let replicas: SyncReplicas
        var a: Store { replicas.a }
        var b: Store { replicas.b }
        init() throws {
            replicas = try SyncReplicas { _ = try $0.insert("Tag", ["name": .string("shared tag")]) }
        }

        /// A post with `slug`, tagged with the shared tag, with one attachment; its id.
        @discardableResult
        func post(on store: Store, _ title: String, slug: String) throws -> String {
            let context = ObjectContext(store: store)
            let tag = try #require(try context.fetch(ObjectFetch(model: "Tag")).first)
            let post = try context.insert("Post", ["title": .string(title), "views": .int(1), "slug": .string(slug), "tags": .array([.string(tag.id)])])
            _ = try context.insert("Attachment", ["name": .string("file of \(title)"), "sizeMiB": .double(1), "post": .string(post.id)])
            try context.save()
            return post.id
        }

        /// "first" on a, then "second" on b, with one slug, synced everywhere: their ids.
        func collide() throws -> (first: String, later: String) {
            let first = try post(on: a, "first", slug: "same")
            let later = try post(on: b, "second", slug: "same")
            try syncBoth()
            try sync(b)
            return (first, later)
        }

        func sync(_ store: Store) throws {
            let session = try replicas.session(store)
            try session.push()
            try session.pull()
        }

        func syncBoth() throws {
            try sync(a); try sync(b); try sync(a)
        }

        func rows(_ store: Store, _ sql: String) throws -> [String] {
            try store.database.rows(sql).map { $0.map { $0.string ?? $0.int64.map(String.init) ?? "null" }.joined(separator: " ") }
        }

        /// What an export would compare: posts, attachments' posts, and tag links.
        func state(_ store: Store) throws -> [String] {
            try rows(store, #"SELECT "title", "slug" FROM "Post" ORDER BY "_id""#)
                + rows(store, #"SELECT a."name", p."title" FROM "Attachment" a LEFT JOIN "Post" p ON p."_id" = a."post" ORDER BY a."_id""#)
                + rows(store, #"SELECT p."title" FROM "_vein_link_Post_tags" l JOIN "Post" p ON p."_id" = l."owner" ORDER BY p."_id""#)
        }
    }

    @Test func theEarlierClaimStaysAndTheLaterIsSetAsideWhole() throws {
        let p = try Pair()
        let (_, later) = try p.collide()
        let expected = ["first same", "file of first first", "file of second null", "first"]
        #expect(try p.state(p.a) == expected)
        #expect(try p.state(p.b) == expected)
        for store in [p.a, p.b] {
            #expect(try StoreVerifier.verify(store).isClean)
            let conflicts = try SyncConflicts(store: store).list()
            #expect(conflicts.map(\.id) == [later] && conflicts.first?.model == "Post", "\(conflicts)")
            #expect(conflicts.first?.fields.first { $0.name == "title" }?.value == .text("second"))
        }
    }

    @Test func aSetAsideRowComesBackWithItsLinksWhenItsValueIsFree() throws {
        let p = try Pair()
        let (first, _) = try p.collide()
        // Freed on b, by a rename of the row that holds the value.
        let context = ObjectContext(store: p.b)
        try #require(try context.object("Post", id: first)).set("slug", .string("renamed"))
        try context.save()
        try p.syncBoth()
        let expected = ["first renamed", "second same", "file of first first", "file of second second", "first", "second"]
        #expect(try p.state(p.b) == expected)
        #expect(try p.state(p.a) == expected)
        for store in [p.a, p.b] {
            #expect(try SyncConflicts(store: store).list().isEmpty)
            #expect(try StoreVerifier.verify(store).isClean)
        }
    }

    @Test func aSetAsideRowDeletedElsewhereLeavesNothing() throws {
        let p = try Pair()
        try p.post(on: p.a, "first", slug: "same")
        let later = try p.post(on: p.b, "second", slug: "same")
        try p.sync(p.a)
        // b deletes its own post before it hears of a's: the delete reaches a, where the post is set aside.
        try p.sync(p.b)
        try SyncConflicts(store: p.b).keep(.mine, id: later)
        try p.syncBoth()
        let expected = ["first same", "file of first first", "file of second null", "first"]
        #expect(try p.state(p.a) == expected)
        #expect(try p.state(p.b) == expected)
        for store in [p.a, p.b] { #expect(try SyncConflicts(store: store).list().isEmpty) }
    }

    @Test func keepingTheirsReplacesTheRowThatHeldTheValue() throws {
        let p = try Pair()
        let (_, later) = try p.collide()
        try SyncConflicts(store: p.a).keep(.theirs, id: later)
        try p.syncBoth()
        // The first post is deleted with its rules (its attachment cascades); the second is back whole.
        let expected = ["second same", "file of second second", "second"]
        #expect(try p.state(p.a) == expected)
        #expect(try p.state(p.b) == expected)
    }
}
