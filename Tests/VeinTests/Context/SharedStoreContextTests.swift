import Foundation
import Testing
@testable import Vein

/// Contexts made from one `Store` on different threads (issue 11, item 5): each works on a connection of
/// its own, so they share no SQLite connection or statement cache. (The name ends in ContextTests:
/// scripts/test runs it under the thread sanitizer, which reports a shared connection as a data race.)
@Suite struct SharedStoreContextTests {
    @Test func contextsFromOneStoreHaveConnectionsOfTheirOwn() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let a = ObjectContext(store: f.store), b = ObjectContext(store: f.store)
        let first = try a.database, second = try b.database
        #expect(first !== second && first !== f.store.database)
        #expect(try a.database === first, "one connection for the context's life")
    }

    @Test func twoContextsFromOneStoreWorkOnTwoThreads() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let contexts = [ObjectContext(store: f.store), ObjectContext(store: f.store)]
        let rounds = 40
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: contexts.count) { n in
            let context = contexts[n]
            do {
                for round in 0..<rounds {
                    let post = try context.insert("Post", ["title": .string("t\(n)-\(round)"), "content": .string("c")])
                    try context.insert("Attachment", ["name": .string("a\(n)-\(round)"), "sizeMiB": .double(1), "post": .string(post.id)])
                    try context.save()
                    _ = try context.fetch(ObjectFetch(model: "Post", predicate: try f.predicate("title.hasPrefix(\"t\(n)\")", "Post")))
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        let check = ObjectContext(store: f.store)
        #expect(try check.fetchCount(ObjectFetch(model: "Post")) == contexts.count * rounds)
        #expect(try check.fetchCount(ObjectFetch(model: "Attachment")) == contexts.count * rounds)
    }
}

/// Errors collected from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []
    func append(_ error: String) { lock.withLock { errors.append(error) } }
    var all: [String] { lock.withLock { errors } }
}
