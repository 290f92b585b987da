import Foundation
import Testing
@testable import Vein

/// `fetchIdentifiers` answers what `fetch(…).map(\.id)` answers. Before, it was exactly that, and so cost
/// more than the fetch (issue 19: 0.71 s for the ids of 200,000 rows, 0.60 s for the objects); where SQL
/// gives the whole answer it now reads the ids alone and makes no object.
@Suite struct FetchIdentifiersTests {
    /// 60 posts with views 0…59, saved; a new context on them.
    @discardableResult
    func posts(_ f: ContextFixture) throws -> ObjectContext {
        let writer = try f.context()
        for n in 0..<60 { _ = try writer.insert("Post", ["title": .string("p\(n)"), "content": .string("c"), "views": .int(Int64(n))]) }
        try writer.save()
        return try f.context()
    }

    @Test func theSameIdsAsAFetchWithoutMakingObjects() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        try posts(f)
        let descriptors = [
            ObjectFetch(model: "Post"),
            ObjectFetch(model: "Post", predicate: try f.predicate("views >= 10 && views % 3 == 0", "Post"),
                            sortBy: [.init("views", ascending: false)], fetchLimit: 7, fetchOffset: 2),
            ObjectFetch(model: "Post", sortBy: [.init("title")]),
        ]
        for descriptor in descriptors {
            let context = try f.context()
            let ids = try context.fetchIdentifiers(descriptor)
            #expect(context.registeredObjectCount == 0, "ids only: no object made")
            #expect(ids == (try context.fetch(descriptor).map(\.id)))
        }
    }

    /// Unsaved changes of the model: the ids as this context sees the rows, its deletions and inserts too.
    @Test func pendingChangesAreSeen() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try posts(f)
        let all = ObjectFetch(model: "Post", sortBy: [.init("views")])
        let first = try #require(try context.fetch(ObjectFetch(model: "Post", sortBy: [.init("views")], fetchLimit: 1)).first)
        try context.delete(first)
        let added = try context.insert("Post", ["title": .string("new"), "content": .string("c"), "views": .int(1000)])
        let ids = try context.fetchIdentifiers(all)
        #expect(ids.count == 60)
        #expect(!ids.contains(first.id) && ids.last == added.id)
        var stored = all
        stored.includePendingChanges = false
        // The store's rows, but never one this context deleted (as `fetch` leaves it out).
        #expect(try context.fetchIdentifiers(stored) == (try context.fetch(stored).map(\.id)))
        #expect(!(try context.fetchIdentifiers(stored)).contains(first.id))
    }
}
