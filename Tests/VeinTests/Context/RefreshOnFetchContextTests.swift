import Foundation
import Testing
@testable import Vein

/// A fetch takes another context's saved values into the objects this context holds without changes;
/// objects with unsaved changes keep them, and their save still checks the row. (The name ends in
/// ContextTests: scripts/test runs it under the thread sanitizer.)
@Suite struct RefreshOnFetchContextTests {
    private static func post(in main: ObjectContext) throws -> ModelObject {
        let post = try main.insert("Post", ["title": .string("draft"), "content": .string("c")])
        try main.save()
        return post
    }

    @Test func aFetchRefreshesAHeldObjectAnotherContextChanged() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let main = ObjectContext(store: f.store)
        let post = try Self.post(in: main)
        let other = ObjectContext(store: f.store)
        try #require(try other.object("Post", id: post.id)).set("title", .string("published"))
        try other.save()

        let fetched = try main.fetch(ObjectFetch(model: "Post"))
        #expect(fetched.first === post, "the same object, one per row")
        #expect(try post["title"] == .string("published"))
        try post.set("content", .string("edited"))
        try main.save()  // no conflict: the object holds what the store holds
        #expect(try other.fetch(ObjectFetch(model: "Post")).first?["content"] == .string("edited"), "its fetch refreshes too")
    }

    @Test func aHeldObjectWithUnsavedChangesKeepsThemAndItsSaveIsAConflict() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let main = ObjectContext(store: f.store)
        let post = try Self.post(in: main)
        try post.set("content", .string("mine"))
        let other = ObjectContext(store: f.store)
        try #require(try other.object("Post", id: post.id)).set("title", .string("theirs"))
        try other.save()

        _ = try main.fetch(ObjectFetch(model: "Post"))
        #expect(try post["title"] == .string("draft") && post["content"] == .string("mine"))
        let error = try #require(throws: ContextError.self) { try main.save() }
        #expect(error.description == "another context or process changed Post \(post.id) after it was read; nothing was saved")
    }
}
