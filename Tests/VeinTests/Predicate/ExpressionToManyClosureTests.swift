import CSQLCipher
import Foundation
import Testing
@testable import Vein

/// Closures over a to-many's members as Swift writes them: `contains { … }`, `contains(where:)`,
/// `allSatisfy { … }`, `filter { … }.count`, with `$0` or a named parameter. SQL (`EXISTS`, `NOT EXISTS`,
/// a correlated count, through the relationship's index) and memory give Swift's answers, nil included.
@Suite struct ExpressionToManyClosureTests {
    static let manifestText = """
        { vein: 1, app: "test.closures", version: "1.0.0", models: {
            Post: { fields: { title: "string", views: "int" },
                    relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" },
                                     tags: { to: "Tag", many: true, inverse: "posts" } } },
            Attachment: { fields: { name: "string", sizeMiB: "double", note: "string?" },
                          relationships: { post: { to: "Post", inverse: "attachments" } } },
            Tag: { fields: { name: "string" }, relationships: { posts: { to: "Post", many: true, inverse: "tags" } } },
        } }
        """

    struct Fixture {
        let dir: TempDir
        let manifest: SchemaManifest
        let store: Store
        let context: ObjectContext
        var post: ModelSchema { manifest.model(named: "Post")! }

        /// Posts p0…p4: p0 none; p1 one small with a note; p2 a small and a big without notes; p3 two big, one
        /// noted "x"; p4 three small, one noted "". Tags: t-a on p1, p2; t-b on p2.
        init() throws {
            dir = try TempDir()
            manifest = try ManifestParser.parse(ExpressionToManyClosureTests.manifestText, file: "closures.json5")
            store = try dir.plaintextStore("c.vein", manifest: manifest)
            let writer = ObjectContext(store: store)
            let sizes: [[(Double, String?)]] = [[], [(0.5, "n")], [(0.25, nil), (4, nil)], [(2, "x"), (8, nil)], [(0.5, nil), (0.75, ""), (1, nil)]]
            var posts: [ModelObject] = []
            for (i, attachments) in sizes.enumerated() {
                let post = try writer.insert("Post", ["title": .string("p\(i)"), "views": .int(Int64(i))])
                posts.append(post)
                for (j, (size, note)) in attachments.enumerated() {
                    _ = try writer.insert("Attachment", ["name": .string("a\(i)\(j)"), "sizeMiB": .double(size), "note": note.map(Value.string) ?? .null,
                                                        "post": .string(post.id)])
                }
            }
            _ = try writer.insert("Tag", ["name": .string("t-a"), "posts": .array([.string(posts[1].id), .string(posts[2].id)])])
            _ = try writer.insert("Tag", ["name": .string("t-b"), "posts": .array([.string(posts[2].id)])])
            try writer.save()
            context = ObjectContext(store: store)
        }

        /// Titles of the posts the condition selects: through a fetch (SQL), through the evaluator alone,
        /// and through the SQL fragment alone; all three must agree.
        func titles(_ condition: String) throws -> [String] {
            let typed = try TypeChecker.checkPredicate(condition, model: post, manifest: manifest)
            func names(_ objects: [ModelObject]) throws -> [String] { try objects.map { try $0["title"].stringValue ?? "" }.sorted() }
            let fetched = try names(context.fetch(ObjectFetch(model: "Post", predicate: typed)))
            let all = try context.fetch(ObjectFetch(model: "Post"))
            let inMemory = try names(all.filter { try context.evaluator(for: $0).test(typed) })
            #expect(fetched == inMemory, "\(condition): fetch \(fetched), memory \(inMemory)")
            let fragment = try #require(SQLCompiler(table: "\"Post\"", model: post, manifest: manifest).condition(typed), "\(condition)")
            #expect(fragment.isExact, "\(condition)")
            let sql = try store.database.rows("SELECT \"title\" FROM \"Post\" WHERE \(fragment.sql) ORDER BY \"title\"", fragment.arguments).map { $0[0].string! }
            #expect(sql == inMemory, "\(condition): SQL \(sql), memory \(inMemory)\n\(fragment.sql)")
            return inMemory
        }
    }

    @Test func closuresSelectAsSwiftWould() throws {
        let f = try Fixture()
        #expect(try f.titles("attachments.contains { $0.sizeMiB > 1 }") == ["p2", "p3"])
        #expect(try f.titles("attachments.contains(where: { a in a.sizeMiB > 1 })") == ["p2", "p3"])
        #expect(try f.titles("attachments.contains { (a) in a.sizeMiB > 1 && a.note == nil }") == ["p2", "p3"])
        // allSatisfy is true on no members, as Swift's is.
        #expect(try f.titles("attachments.allSatisfy { $0.sizeMiB < 1 }") == ["p0", "p1"])
        #expect(try f.titles("attachments.filter { $0.sizeMiB < 1 }.count >= 2") == ["p4"])
        #expect(try f.titles("attachments.filter { $0.sizeMiB < 1 }.isEmpty") == ["p0", "p3"])
        // The member's own names and the outer object's bare ones, side by side.
        #expect(try f.titles("attachments.contains { $0.sizeMiB > 1 } || views == 0") == ["p0", "p2", "p3"])
        #expect(try f.titles("attachments.contains { $0.name == \"a00\" || views == 1 }") == ["p1"])
        // Through a link table (a many-to-many), and nested: a post with a tag that has another post.
        #expect(try f.titles("tags.contains { $0.name == \"t-b\" }") == ["p2"])
        #expect(try f.titles("tags.contains { $0.posts.count > 1 }") == ["p1", "p2"])
        #expect(try f.titles("tags.contains { t in t.posts.contains { $0.views == 1 } }") == ["p1", "p2"])
    }

    /// nil as Swift has it: `nil != "x"` is true, `nil?.isEmpty` is nil, which `== false` does not match.
    @Test func nilFollowsSwiftNotSQL() throws {
        let f = try Fixture()
        #expect(try f.titles("attachments.allSatisfy { $0.note != \"x\" }") == ["p0", "p1", "p2", "p4"])
        #expect(try f.titles("attachments.allSatisfy { $0.note == nil }") == ["p0", "p2"])
        #expect(try f.titles("attachments.contains { $0.note?.isEmpty == false }") == ["p1", "p3"])
        #expect(try f.titles("attachments.allSatisfy { $0.note?.isEmpty != true }") == ["p0", "p1", "p2", "p3"])
        #expect(try f.titles("attachments.filter { $0.note == nil }.count == 2") == ["p2", "p4"])
    }

    @Test func pendingChangesAreSeen() throws {
        let f = try Fixture()
        let p0 = try #require(try f.context.fetch(ObjectFetch(model: "Post", predicate: try TypeChecker.checkPredicate("views == 0", model: f.post, manifest: f.manifest))).first)
        _ = try f.context.insert("Attachment", ["name": .string("new"), "sizeMiB": .double(9), "post": .string(p0.id)])
        let typed = try TypeChecker.checkPredicate("attachments.contains { $0.sizeMiB > 8.5 }", model: f.post, manifest: f.manifest)
        #expect(try f.context.fetch(ObjectFetch(model: "Post", predicate: typed)).map(\.id) == [p0.id])
        // A field changed in the context, not yet saved: its stored form does not match, the object does.
        try p0.set("views", .int(99))
        let changed = try TypeChecker.checkPredicate("views == 99", model: f.post, manifest: f.manifest)
        #expect(try f.context.fetch(ObjectFetch(model: "Post", predicate: changed)).map(\.id) == [p0.id])
        // Its stored form matches, the object no longer does.
        let stored = try TypeChecker.checkPredicate("views == 0", model: f.post, manifest: f.manifest)
        #expect(try f.context.fetch(ObjectFetch(model: "Post", predicate: stored)).isEmpty)
        // The stored row (views 0) would trap where the object (views 99) does not: Swift's answer, no error.
        let trapsOnStored = try TypeChecker.checkPredicate("100 / views == 1", model: f.post, manifest: f.manifest)
        #expect(try f.context.fetch(ObjectFetch(model: "Post", predicate: trapsOnStored)).map(\.id) == [p0.id])
    }

    @Test func errorsSayWhatSwiftWants() {
        let manifest = ExpressionParserTests.manifest, post = ExpressionParserTests.post
        func failure(_ source: String) -> String? {
            do { _ = try TypeChecker.checkPredicate(source, model: post, manifest: manifest); return nil } catch { return error.rendered }
        }
        #expect(failure("attachments.contains { sizeMiB > 1 }")
                == "no field 'sizeMiB' in Post (inside the closure, write $0.sizeMiB)\n  attachments.contains { sizeMiB > 1 }\n                         ^")
        #expect(failure("attachments.contains { $0.sizeMiB }")
                == "a closure's body must be a Bool, not Double\n  attachments.contains { $0.sizeMiB }\n                            ^")
        #expect(failure("attachments.contains({ $0.sizeMiB > 1 })")
                == "use contains(where: { … }) or a trailing closure: contains { … }\n  attachments.contains({ $0.sizeMiB > 1 })\n              ^")
        #expect(failure("attachments.contains { a in $0.sizeMiB > 1 }")
                == "anonymous closure arguments cannot be used inside a closure that has explicit arguments, as in Swift\n  attachments.contains { a in $0.sizeMiB > 1 }\n                              ^")
        #expect(failure("attachments.first { $0.sizeMiB > 1 } == nil")
                == "[Attachment] has no method 'first'\n  attachments.first { $0.sizeMiB > 1 } == nil\n              ^")
        #expect(failure("attachments.contains { $0.post?.title.contains(\"x\") }")
                == "a closure's body must be a Bool, not Bool?; write (…) == true to take nil as false, as Swift requires\n  attachments.contains { $0.post?.title.contains(\"x\") }\n                                        ^")
        #expect(failure("attachments.allSatisfy(true)")
                == "allSatisfy on a relationship takes a closure over its members: allSatisfy { $0.… }\n  attachments.allSatisfy(true)\n              ^")
        #expect(failure("attachments.contains(where: true)")
                == "contains on a relationship takes a closure over its members: contains(where: { $0.… })\n  attachments.contains(where: true)\n              ^")
        #expect(failure("attachments.contains { a in a == nil }")
                == "a is an object: compare one of its fields (a.name)\n  attachments.contains { a in a == nil }\n                              ^")
        #expect(failure("title.contains({ $0.views > 1 })")
                == "a closure can only be the argument of contains(where:), allSatisfy or filter on a to-many relationship\n  title.contains({ $0.views > 1 })\n                 ^")
        #expect(failure("{ $0.views > 1 }") == "expected a value, found '{'\n  { $0.views > 1 }\n  ^")
    }

    /// The closures reach members through the inverse column's index or the link table's key: no scan of
    /// the members' table.
    @Test func queryPlansUseTheRelationshipsIndex() throws {
        let f = try Fixture()
        for condition in ["attachments.contains { $0.sizeMiB > 1 }", "attachments.allSatisfy { $0.note == nil }",
                          "attachments.filter { $0.sizeMiB > 1 }.count == 1", "tags.contains { $0.name == \"t-a\" }",
                          "tags.allSatisfy { $0.posts.contains { p in p.views > 1 } }"] {
            let typed = try TypeChecker.checkPredicate(condition, model: f.post, manifest: f.manifest)
            let fragment = try #require(SQLCompiler(table: "\"Post\"", model: f.post, manifest: f.manifest).condition(typed))
            let lines = try f.store.database.rows("EXPLAIN QUERY PLAN SELECT \"_id\" FROM \"Post\" WHERE \(fragment.sql)", fragment.arguments).compactMap { $0[3].string }
            #expect(!lines.contains { $0.hasPrefix("SCAN TABLE") && !$0.hasPrefix("SCAN TABLE Post") }, "\(condition): \(lines)")
            #expect(lines.contains { $0.contains("USING") && $0.contains("INDEX") }, "\(condition): \(lines)")
        }
    }
}
