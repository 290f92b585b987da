import CSQLCipher
import Foundation
import Testing
@testable import Vein

/// Delete rules and the conflict check of deleted rows run as set-based SQL (issue 11, item 1): the
/// statements a delete costs do not grow with the rows it deletes, cascade follows every level, deny
/// refuses what the context never loaded, and held objects follow what the store did.
@Suite struct SetBasedDeleteTests {
    static let manifestText = """
        { vein: 1, app: "test.sets", version: "1.0.0", models: {
            Blog: { fields: { name: "string" },
                    relationships: { posts: { to: "Post", many: true, inverse: "blog", deleteRule: "cascade" } } },
            Post: { fields: { title: "string", views: { type: "int", default: 0 } },
                    relationships: { blog: { to: "Blog", inverse: "posts" },
                                     comments: { to: "Comment", many: true, inverse: "post", deleteRule: "cascade" },
                                     tags: { to: "Tag", many: true, inverse: "posts" } } },
            Comment: { fields: { text: "string" },
                       relationships: { post: { to: "Post", inverse: "comments" },
                                        reports: { to: "Report", many: true, deleteRule: "deny" } } },
            Report: { fields: { reason: "string" } },
            Tag: { fields: { name: "string" }, relationships: { posts: { to: "Post", many: true, inverse: "tags" } } },
        } }
        """

    final class Fixture {
        let dir: TempDir
        let path: String

        init() throws {
            dir = try TempDir()
            path = dir.path("s.vein")
            _ = try StoreCreator.create(at: path, manifest: try ManifestParser.parse(SetBasedDeleteTests.manifestText, file: "s.json5"),
                                        protection: .plaintext)
        }

        deinit { dir.cleanUp() }

        func store() throws -> Store { try Store.open(path, keys: KeyOptions(keyring: nil)) }
        func context() throws -> ObjectContext { ObjectContext(store: try store()) }
        func count(_ model: String) throws -> Int { try context().fetchCount(ObjectFetch(model: model)) }

        /// `blogs` blogs of 3 posts of 2 comments, every post tagged with one shared tag.
        @discardableResult
        func seed(blogs: Int) throws -> (tag: String, blogs: [String]) {
            let context = try context()
            let tag = try context.insert("Tag", ["name": .string("t")])
            var ids: [String] = []
            for b in 0..<blogs {
                let blog = try context.insert("Blog", ["name": .string("b\(b)")])
                ids.append(blog.id)
                for p in 0..<3 {
                    let post = try context.insert("Post", ["title": .string("p\(p)"), "blog": .string(blog.id),
                                                           "tags": .array([.string(tag.id)])])
                    for c in 0..<2 { try context.insert("Comment", ["text": .string("c\(c)"), "post": .string(post.id)]) }
                }
            }
            try context.save()
            return (tag.id, ids)
        }
    }

    /// Counts the statements a connection runs, leaving out the inserts that fill a temporary id set
    /// (one per id, the set's whole point is that nothing else is).
    final class StatementCounter {
        var count = 0
        func install(on database: Database) {
            sqlite3_trace_v2(database.handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
                guard let context, let statement else { return 0 }
                let sql = sqlite3_sql(OpaquePointer(statement)).map { String(cString: $0) } ?? ""
                if !sql.hasPrefix("INSERT OR IGNORE INTO temp.") || !sql.contains("VALUES") {
                    Unmanaged<StatementCounter>.fromOpaque(context).takeUnretainedValue().count += 1
                }
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        }
        func uninstall(from database: Database) { sqlite3_trace_v2(database.handle, 0, nil, nil) }
    }

    /// Deletes every blog from a context that fetched only the blogs; the statements it ran.
    func statementsToDeleteEveryBlog(_ f: Fixture) throws -> Int {
        let context = try f.context()
        let counter = StatementCounter()
        let blogs = try context.fetch(ObjectFetch(model: "Blog"))
        let database = try context.database
        counter.install(on: database)
        defer { counter.uninstall(from: database) }
        for blog in blogs { try context.delete(blog) }
        try context.save()
        return counter.count
    }

    @Test func aCascadeCostsTheSameStatementsForTenRowsAsForAHundred() throws {
        let small = try Fixture(), large = try Fixture()
        try small.seed(blogs: 2)
        try large.seed(blogs: 40)
        let few = try statementsToDeleteEveryBlog(small), many = try statementsToDeleteEveryBlog(large)
        #expect(few == many, "statements for 2 blogs: \(few), for 40: \(many)")
        for f in [small, large] {
            #expect(try f.count("Blog") == 0 && f.count("Post") == 0 && f.count("Comment") == 0)
            #expect(try f.count("Tag") == 1)
            #expect(try f.context().database.scalar(#"SELECT count(*) FROM "_vein_link_Post_tags""#) == .integer(0))
            #expect(try StoreVerifier.verify(try f.store()).isClean)
        }
    }

    /// The conflict check of deleted rows read earlier is one statement per model, and still catches a
    /// row another context changed or deleted meanwhile.
    @Test func theConflictCheckOfDeletedRowsIsPerModelAndCatchesEveryLostUpdate() throws {
        func statements(deletingPostsOf blogs: Int) throws -> Int {
            let f = try Fixture()
            try f.seed(blogs: blogs)
            let context = try f.context()
            let posts = try context.fetch(ObjectFetch(model: "Post"))
            let counter = StatementCounter()
            let database = try context.database
            counter.install(on: database)
            defer { counter.uninstall(from: database) }
            for post in posts { try context.delete(post) }
            try context.save()
            #expect(try f.count("Post") == 0 && f.count("Comment") == 0)
            return counter.count
        }
        let few = try statements(deletingPostsOf: 2), many = try statements(deletingPostsOf: 30)
        #expect(few == many, "statements for 6 posts: \(few), for 90: \(many)")

        let f = try Fixture()
        try f.seed(blogs: 3)
        for change in ["update", "delete"] {
            let a = try f.context(), b = try f.context()
            let posts = try a.fetch(ObjectFetch(model: "Post"))
            let victim = posts[posts.count / 2]
            let other = try #require(try b.object("Post", id: victim.id))
            if change == "update" { try other.set("views", .int(7)) } else { try b.delete(other) }
            try b.save()
            for post in posts { try a.delete(post) }
            #expect(throws: ContextError.conflict(model: "Post", id: victim.id), "\(change)") { try a.save() }
            #expect(try f.count("Post") == posts.count - (change == "delete" ? 1 : 0), "nothing written")
        }
    }

    /// A deny the context never loaded refuses the delete, also when a cascade reaches it, with the
    /// owner and the count `deny` names; the store keeps every row.
    @Test func denyRefusesRowsReachedInTheStore() throws {
        let f = try Fixture()
        let seeded = try f.seed(blogs: 2)
        let setup = try f.context()
        let comment = try #require(try setup.fetch(ObjectFetch(model: "Comment")).last)
        let r1 = try setup.insert("Report", ["reason": .string("spam")]), r2 = try setup.insert("Report", ["reason": .string("rude")])
        try comment.set("reports", .array([.string(r1.id), .string(r2.id)]))
        try setup.save()
        let denied = ContextError.deleteDenied(model: "Comment", id: comment.id, relationship: "reports", count: 2)

        let context = try f.context()
        try context.delete(try #require(try context.object("Blog", id: seeded.blogs[1])))
        #expect(throws: denied) { try context.applyDeleteRules() }
        #expect(throws: denied) { try context.save() }
        #expect(try f.count("Comment") == 12 && f.count("Blog") == 2, "nothing deleted")

        // The other blog has no report: it goes, with its posts and comments.
        context.rollback()
        try context.delete(try #require(try context.object("Blog", id: seeded.blogs[0])))
        try context.save()
        #expect(try f.count("Comment") == 6 && f.count("Post") == 3)
    }

    /// The store's rules through a to-one: a cascade to a passport the context never loaded, a one-to-one
    /// spouse and a manager's list nullified; `vein query`'s delete lists the cascaded row.
    @Test func rulesThroughToOnesInTheStore() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let ann = try setup.insert("Person", ["name": .string("Ann")])
        let boss = try setup.insert("Person", ["name": .string("Boss")])
        let bob = try setup.insert("Person", ["name": .string("Bob"), "spouse": .string(ann.id), "manager": .string(boss.id)])
        let passport = try setup.insert("Passport", ["number": .string("P1"), "holder": .string(bob.id)])
        try setup.save()

        let context = try f.context()
        guard case .changes(let changes) = try QueryRunner(context: context).run("delete Person where name == \"Bob\"", save: true) else {
            Issue.record("a delete gives changes")
            return
        }
        #expect(changes.filter { $0.kind == .delete }.map(\.id).sorted() == [bob.id, passport.id].sorted())
        let after = try f.context()
        #expect(try after.object("Passport", id: passport.id) == nil)
        #expect(try after.object("Person", id: ann.id)!["spouse"] == .null)
        #expect(try after.object("Person", id: boss.id)!["reports"] == .array([]))
        #expect(try f.verify() == [])
    }

    /// Objects a context holds follow what the store's rules did: a comment reached by a cascade the
    /// context never loaded is deleted once the rules are applied, and `changes()` lists every row.
    @Test func heldObjectsFollowTheStoresRules() throws {
        let f = try Fixture()
        let seeded = try f.seed(blogs: 1)
        let context = try f.context()
        let comments = try context.fetch(ObjectFetch(model: "Comment"))
        let tag = try #require(try context.object("Tag", id: seeded.tag))
        guard case .array(let listed) = try tag["posts"] else { throw ContextError.missingValue(model: "Tag", field: "posts") }
        #expect(listed.count == 3)
        try context.delete(try #require(try context.object("Blog", id: seeded.blogs[0])))
        try context.applyDeleteRules()
        #expect(context.changes().filter { $0.kind == .delete }.count == 1 + 3 + 6)
        #expect(comments.allSatisfy { $0.isDeleted })
        try context.save()
        #expect(try tag["posts"] == .array([]), "the held tag's list drops the deleted posts")
        #expect(try f.count("Post") == 0)
    }
}
