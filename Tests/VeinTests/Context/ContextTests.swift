import Foundation
import Testing
@testable import Vein

/// A store of the blog schema plus a social graph (many-to-many, one-to-one, self-reference), in a temp dir.
struct ContextFixture: @unchecked Sendable {
    static let manifestText = """
        { vein: 1, app: "test.context", version: "1.0.0", models: {
            Post: { fields: { title: "string", content: "string", views: { type: "int", default: 0 }, publishedAt: "date?", body: "string? lazy" },
                    relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" },
                                     tags: { to: "Tag", many: true, inverse: "posts" } } },
            Attachment: { fields: { name: "string unique", sizeMiB: "double" },
                          relationships: { post: { to: "Post", inverse: "attachments" } } },
            Tag: { fields: { name: "string" }, relationships: { posts: { to: "Post", many: true, inverse: "tags" } } },
            Person: { fields: { name: "string" },
                      relationships: { spouse: { to: "Person", inverse: "spouse" },
                                       manager: { to: "Person", inverse: "reports" },
                                       reports: { to: "Person", many: true, inverse: "manager", deleteRule: "deny" },
                                       passport: { to: "Passport", inverse: "holder", deleteRule: "cascade" } } },
            Passport: { fields: { number: "string" }, relationships: { holder: { to: "Person", inverse: "passport" } } },
        } }
        """
    let dir: TempDir
    let manifest: SchemaManifest
    let store: Store

    init() throws {
        dir = try TempDir()
        manifest = try ManifestParser.parse(Self.manifestText, file: "context.json5")
        store = try dir.plaintextStore("s.vein", manifest: manifest)
    }

    func context() throws -> ObjectContext { ObjectContext(store: try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))) }

    func predicate(_ source: String, _ model: String) throws -> TypedExpression {
        try TypeChecker.checkPredicate(source, model: manifest.model(named: model)!, manifest: manifest)
    }

    func verify() throws -> [String] {
        try StoreVerifier.verify(try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))).checks.flatMap(\.problems)
    }
}

@Suite struct ContextTests {
    @Test func insertSaveFetchAndIdentityMap() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("Hello"), "content": .string("…")])
        #expect(try post["views"] == .int(0))
        #expect(try post["publishedAt"] == .null)
        #expect(context.hasChanges)
        #expect(context.changes().map(\.kind) == [.insert])
        // Pending inserts are visible to fetches.
        #expect(try context.fetch(ObjectFetch(model: "Post")).map(\.id) == [post.id])
        #expect(try context.fetch(ObjectFetch(model: "Post", includePendingChanges: false)).isEmpty)
        try context.save()
        #expect(!context.hasChanges)
        let again = try context.fetch(ObjectFetch(model: "Post"))
        #expect(again.count == 1 && again[0] === post, "one object per row per context")
        // Another context sees the saved row as its own object.
        let other = try f.context()
        let seen = try #require(try other.object("Post", id: post.id))
        #expect(seen !== post)
        #expect(try seen["title"] == .string("Hello"))
    }

    @Test func typeErrorsAndMissingValues() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        #expect(throws: ContextError.missingValue(model: "Post", field: "content")) { try context.insert("Post", ["title": .string("x")]) }
        #expect(throws: ContextError.typeMismatch(model: "Post", field: "views", expected: "Int", found: "String")) {
            try context.insert("Post", ["title": .string("x"), "content": .string(""), "views": .string("ten")])
        }
        #expect(throws: ContextError.unknownField(model: "Post", field: "titel", suggestion: "title")) { try context.insert("Post", ["titel": .string("x")]) }
        #expect(throws: ContextError.danglingReference(model: "Attachment", field: "post", id: "01ARZ3NDEKTSV4RRFFQ69G5FAV")) {
            try context.insert("Attachment", ["name": .string("a"), "sizeMiB": .double(1), "post": .string("01ARZ3NDEKTSV4RRFFQ69G5FAV")])
        }
        #expect(!context.hasChanges, "a refused insert leaves nothing pending")
    }

    @Test func failedSaveWritesNothingAndKeepsChangesPending() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        for i in 0..<5 { try context.insert("Tag", ["name": .string("t\(i)")]) }
        context.saveFailureInjection = { n in if n == 3 { throw ContextError.constraintViolation("injected") } }
        #expect(throws: ContextError.constraintViolation("injected")) { try context.save() }
        #expect(context.hasChanges)
        #expect(try f.context().fetchCount(ObjectFetch(model: "Tag")) == 0, "nothing written")
        context.saveFailureInjection = nil
        try context.save()
        #expect(try f.context().fetchCount(ObjectFetch(model: "Tag")) == 5)

        // A unique violation is refused by the store: the same.
        try context.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(1)])
        try context.save()
        try context.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(2)])
        #expect(throws: ContextError.self) { try context.save() }
        #expect(context.hasChanges)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try f.context().fetchCount(ObjectFetch(model: "Attachment")) == 1)
    }

    @Test func rollbackRestoresStoredValues() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let tag = try context.insert("Tag", ["name": .string("swift")])
        try context.save()
        try tag.set("name", .string("changed"))
        #expect(context.changes() == [ObjectContext.Change(kind: .update, model: "Tag", id: tag.id, fields: ["name"])])
        context.rollback()
        let fresh = try #require(try context.object("Tag", id: tag.id))
        #expect(try fresh["name"] == .string("swift"))
    }

    @Test func oneToManyInverseAndOrder() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("p"), "content": .string("")])
        let a = try context.insert("Attachment", ["name": .string("a"), "sizeMiB": .double(3), "post": .string(post.id)])
        let b = try context.insert("Attachment", ["name": .string("b"), "sizeMiB": .double(1)])
        let c = try context.insert("Attachment", ["name": .string("c"), "sizeMiB": .double(2)])
        #expect(try post["attachments"] == .array([.string(a.id)]))
        // Setting the to-many sets each to-one, in the user's order.
        try post.set("attachments", .array([.string(c.id), .string(a.id), .string(b.id)]))
        #expect(try b["post"] == .string(post.id))
        try context.save()
        let other = try f.context()
        let stored = try #require(try other.object("Post", id: post.id))
        #expect(try stored.related("attachments").map(\.id) == [c.id, a.id, b.id])
        // Moving an attachment to another post removes it from the first.
        let post2 = try other.insert("Post", ["title": .string("q"), "content": .string("")])
        try #require(try other.object("Attachment", id: a.id)).set("post", .string(post2.id))
        #expect(try stored["attachments"] == .array([.string(c.id), .string(b.id)]))
        try other.save()
        #expect(try f.verify() == [])
        // Traversal pushed down: the post's attachments with their own predicate and sort.
        var d = ObjectFetch(model: "Attachment", predicate: try f.predicate("sizeMiB > 1", "Attachment"), sortBy: [.init("name")])
        d.owner = ("post", post.id)
        #expect(try other.fetch(d).map(\.id) == [c.id])
        var inOrder = ObjectFetch(model: "Attachment")
        inOrder.restrictedTo = [c.id, b.id]
        #expect(try other.fetch(inOrder).map(\.id) == [c.id, b.id])
    }

    @Test func manyToManyOneToOneAndSelfReference() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let p1 = try context.insert("Post", ["title": .string("1"), "content": .string("")])
        let p2 = try context.insert("Post", ["title": .string("2"), "content": .string("")])
        let swift = try context.insert("Tag", ["name": .string("swift"), "posts": .array([.string(p1.id), .string(p2.id)])])
        #expect(try p1["tags"] == .array([.string(swift.id)]) && p2["tags"] == .array([.string(swift.id)]))
        try p1.set("tags", .array([]))
        #expect(try swift["posts"] == .array([.string(p2.id)]))

        let ann = try context.insert("Person", ["name": .string("Ann")])
        let bob = try context.insert("Person", ["name": .string("Bob"), "spouse": .string(ann.id)])
        #expect(try ann["spouse"] == .string(bob.id))
        let cy = try context.insert("Person", ["name": .string("Cy")])
        try cy.set("spouse", .string(ann.id))  // one-to-one: Bob is no longer Ann's spouse
        #expect(try bob["spouse"] == .null && ann["spouse"] == .string(cy.id))
        try bob.set("manager", .string(ann.id))
        try cy.set("manager", .string(ann.id))
        #expect(try ann["reports"] == .array([.string(bob.id), .string(cy.id)]))
        try context.save()
        #expect(try f.verify() == [])
    }

    @Test func deleteRules() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("p"), "content": .string("")])
        let tag = try context.insert("Tag", ["name": .string("t"), "posts": .array([.string(post.id)])])
        let a = try context.insert("Attachment", ["name": .string("a"), "sizeMiB": .double(1), "post": .string(post.id)])
        let boss = try context.insert("Person", ["name": .string("Boss")])
        let worker = try context.insert("Person", ["name": .string("W"), "manager": .string(boss.id)])
        let passport = try context.insert("Passport", ["number": .string("X1"), "holder": .string(worker.id)])
        try context.save()

        // deny: a manager with reports cannot be deleted.
        #expect(throws: ContextError.deleteDenied(model: "Person", id: boss.id, relationship: "reports", count: 1)) { try context.delete(boss) }
        #expect(!boss.isDeleted)
        // cascade: deleting the post deletes its attachment; nullify: the tag forgets the post.
        try context.delete(post)
        #expect(a.isDeleted)
        #expect(try tag["posts"] == .array([]))
        // Deleting the worker nullifies the boss's reports and cascades to the passport.
        try context.delete(worker)
        #expect(passport.isDeleted)
        #expect(try boss["reports"] == .array([]))
        try context.delete(boss)
        try context.save()
        let other = try f.context()
        #expect(try other.fetchCount(ObjectFetch(model: "Attachment")) == 0)
        #expect(try other.fetchCount(ObjectFetch(model: "Person")) == 0)
        #expect(try other.fetchCount(ObjectFetch(model: "Tag")) == 1)
        #expect(try f.verify() == [])
    }

    @Test func objectsOutlivingTheirContextReadTheirLastValues() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        var context: ObjectContext? = try f.context()
        let tag = try context!.insert("Tag", ["name": .string("t")])
        try context!.save()
        context = nil
        #expect(try tag["name"] == .string("t"))
        #expect(throws: ContextError.contextClosed(model: "Tag", id: tag.id)) { try tag.set("name", .string("u")) }
        #expect(tag.isDeleted)
    }

    @Test func identityMapLetsGoOfObjectsNobodyHolds() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let sweep = IdentityMap.minimumSweepThreshold
        let held = try context.insert("Tag", ["name": .string("held")])
        for n in 0..<3 * sweep { _ = try context.insert("Tag", ["name": .string("t\(n)")]) }
        try context.save()
        let fetched = try context.fetch(ObjectFetch(model: "Tag"))
        #expect(fetched.count == 3 * sweep + 1)
        #expect(fetched.contains { $0 === held }, "a held object stays the row's one object")
        #expect(context.registeredObjectCount == 3 * sweep + 1)
        _ = consume fetched
        // Registering more objects sweeps the ones only the map holds (the "t" tags); the held one and
        // the pending ones stay.
        for n in 0..<2 * sweep { _ = try context.insert("Tag", ["name": .string("u\(n)")]) }
        #expect(context.registeredObjectCount == 2 * sweep + 1)
        #expect(try context.object("Tag", id: held.id) === held)
        try context.save()
        #expect(try context.fetchCount(ObjectFetch(model: "Tag")) == 5 * sweep + 1)
    }

    @Test func objectsAFetchRegisteredAreSweptOnceDropped() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let sweep = IdentityMap.minimumSweepThreshold
        let writer = try f.context()
        for n in 0..<3 * sweep { _ = try writer.insert("Tag", ["name": .string("t\(n)")]) }
        try writer.save()
        let context = try f.context()
        var fetched: [ModelObject]? = try context.fetch(ObjectFetch(model: "Tag"))
        let kept = fetched![7]
        // A fetch sweeps nothing it holds itself.
        #expect(context.registeredObjectCount == 3 * sweep)
        fetched = nil
        // The first registration after it sweeps what nobody holds any more; the held object stays the
        // row's one object.
        let inserted = try context.insert("Tag", ["name": .string("new")])
        #expect(context.registeredObjectCount == 2)
        #expect(try context.object("Tag", id: kept.id) === kept)
        let again = try context.fetch(ObjectFetch(model: "Tag"))
        #expect(again.count == 3 * sweep + 1)
        #expect(again[7] === kept && again.last === inserted)
    }

    @Test func lazyFieldsLoadOnFirstAccess() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("p"), "content": .string(""), "body": .string("long")])
        try context.save()
        let other = try f.context()
        let fetched = try #require(try other.fetch(ObjectFetch(model: "Post")).first)
        // To-many relationships are read on first access too (store format 2: no column on the owner).
        let toMany = Set(fetched.layout.columns.indices.filter { fetched.layout.isToMany[$0] })
        #expect(fetched.unloaded == toMany.union([fetched.layout.index["body"]!]))
        #expect(try fetched["body"] == .string("long"))
        #expect(fetched.unloaded == toMany)
        _ = post
    }

    @Test func fetchWithPredicateSortWindowAndPendingChanges() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        for (title, views) in [("b", 5), ("a", 10), ("c", 10), ("d", 1)] {
            try context.insert("Post", ["title": .string(title), "content": .string(""), "views": .int(Int64(views))])
        }
        try context.save()
        let sorted = ObjectFetch(model: "Post", predicate: try f.predicate("views > 1", "Post"),
                                     sortBy: [.init("views", ascending: false), .init("title")], fetchLimit: 2, fetchOffset: 1)
        func titles(_ d: ObjectFetch) throws -> [String] { try context.fetch(d).map { try $0["title"].stringValue ?? "" } }
        #expect(try titles(sorted) == ["c", "b"])
        // The same fetch with pending changes runs in memory and agrees with SQL's order.
        let e = try context.insert("Post", ["title": .string("e"), "content": .string(""), "views": .int(7)])
        #expect(try titles(sorted) == ["c", "e"])
        try context.delete(e)
        #expect(try titles(sorted) == ["c", "b"])
        #expect(try context.fetchCount(ObjectFetch(model: "Post", predicate: try f.predicate("title.lowercased() == \"a\"", "Post"))) == 1)
        // Nil sorts first ascending, as Swift's SortDescriptor on optionals.
        let d = try context.object("Post", id: try context.fetch(ObjectFetch(model: "Post", predicate: try f.predicate("title == \"d\"", "Post")))[0].id)!
        try d.set("publishedAt", .date(1000))
        try context.save()
        let byDate = try context.fetch(ObjectFetch(model: "Post", sortBy: [.init("publishedAt")])).map { try $0["title"].stringValue! }
        #expect(byDate == ["b", "a", "c", "d"])
    }

    /// Several contexts on several threads over one store: every insert lands, the store verifies.
    @Test func contextsOnSeveralThreads() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let shared = try f.context()
        let errors = ErrorBox()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                let context = try f.context()
                for i in 0..<25 {
                    try context.insert("Tag", ["name": .string("w\(worker)-\(i)")])
                    if i % 5 == 4 { try context.save() }
                }
                // The shared context is used from every thread at once too.
                _ = try shared.insert("Tag", ["name": .string("shared-\(worker)")])
                _ = try shared.fetch(ObjectFetch(model: "Tag"))
            } catch {
                errors.append("\(error)")
            }
        }
        try shared.save()
        #expect(errors.items == [])
        #expect(try f.context().fetchCount(ObjectFetch(model: "Tag")) == 104)
        #expect(try f.verify() == [])
    }

    /// Random operation sequences keep the store consistent: `vein verify` finds nothing.
    @Test func randomOperationsKeepRelationshipsConsistent() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        var rng = SplitMix64(seed: 7)
        let context = try f.context()
        var people: [ModelObject] = []
        for step in 0..<400 {
            let alive = people.filter { !$0.isDeleted }
            switch Int.random(in: 0..<6, using: &rng) {
            case 0, 1: people.append(try context.insert("Person", ["name": .string("p\(step)")]))
            case 2 where !alive.isEmpty:
                let a = alive.randomElement(using: &rng)!, b = alive.randomElement(using: &rng)!
                try a.set("manager", Bool.random(using: &rng) ? .string(b.id) : .null)
            case 3 where !alive.isEmpty:
                let a = alive.randomElement(using: &rng)!, b = alive.randomElement(using: &rng)!
                try a.set("spouse", .string(b.id))
            case 4 where !alive.isEmpty:
                let a = alive.randomElement(using: &rng)!
                do { try context.delete(a) } catch ContextError.deleteDenied {}
            default:
                try context.save()
            }
        }
        try context.save()
        #expect(try f.verify() == [])
    }
}

final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ s: String) { lock.withLock { storage.append(s) } }
    var items: [String] { lock.withLock { storage } }
}
