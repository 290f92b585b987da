import CSQLCipher
import Foundation
import Testing
@testable import Vein

/// Store format 2 (docs/store-format.md): relationships in indexed columns and link tables, every lookup through an
/// index, link changes written link by link.
@Suite struct RelationshipLayoutTests {
    static let manifestText = """
        { vein: 1, app: "test.layout", version: "1.0.0", models: {
            Post: { fields: { title: "string" },
                    relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" },
                                     tags: { to: "Tag", many: true, inverse: "posts" }, related: { to: "Post", many: true } } },
            Attachment: { fields: { name: "string", sizeMiB: "double" }, relationships: { post: { to: "Post", inverse: "attachments" } } },
            Tag: { fields: { name: "string" }, relationships: { posts: { to: "Post", many: true, inverse: "tags", deleteRule: "deny" } } },
        } }
        """

    final class Fixture {
        let dir: TempDir
        let manifest: SchemaManifest
        let path: String

        init() throws {
            dir = try TempDir()
            manifest = try ManifestParser.parse(RelationshipLayoutTests.manifestText, file: "layout.json5")
            path = dir.path("l.vein")
            _ = try StoreCreator.create(at: path, manifest: manifest, protection: .plaintext)
        }

        deinit { dir.cleanUp() }

        func store() throws -> Store { try Store.open(path, keys: KeyOptions(keyring: nil)) }
        func context() throws -> ObjectContext { ObjectContext(store: try store()) }
    }

    // MARK: Layout

    @Test func storageKinds() throws {
        let f = try Fixture()
        let kinds = RelationshipStorage.all(in: f.manifest).map { "\($0.model).\($0.name): \($0.kind) \($0.linkTable ?? $0.positionColumn ?? "")" }
        #expect(kinds == [
            "Post.attachments: reverseColumn _vein_pos_attachments",
            // Post.tags sorts before Tag.posts: its table is the shared one.
            "Post.tags: linkTable _vein_link_Post_tags",
            "Post.related: linkTable _vein_link_Post_related",
            "Attachment.post: column _vein_pos_attachments",
            "Tag.posts: linkTable _vein_link_Post_tags",
        ])
        let tables = try f.store().database.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
        #expect(tables == ["Attachment", "Post", "Tag", "_vein_link_Post_related", "_vein_link_Post_tags", "_vein_meta", "_vein_migrations"])
    }

    /// Every statement the layers use to follow, count, test, change or check a relationship reaches
    /// the rows through an index: no `SCAN TABLE` of a model or link table (the temporary id sets of a
    /// save are scanned, which is the point of them).
    @Test func queryPlansUseIndexes() throws {
        let f = try Fixture()
        let db = try f.store().database
        try db.execute(DeleteSet.createSQL)
        try db.execute(#"CREATE TEMP TABLE "_vein_checked" ("id" TEXT PRIMARY KEY NOT NULL)"#)
        var checked = 0
        func plan(_ sql: String) throws -> [String] {
            try db.rows("EXPLAIN QUERY PLAN " + sql.replacingOccurrences(of: "?1", with: "?")).compactMap { $0[3].string }
        }
        func expectIndexed(_ sql: String, _ what: String) throws {
            let lines = try plan(sql)
            let scans = lines.filter { $0.hasPrefix("SCAN TABLE") && !$0.contains("_vein_deleted") && !$0.contains("_vein_checked") }
            #expect(scans.isEmpty, "\(what): \(lines)\n\(sql)")
            checked += 1
        }
        for storage in RelationshipStorage.all(in: f.manifest) {
            let name = "\(storage.model).\(storage.name)"
            let set = DeleteSet.ids(of: storage.target)
            // Traversal, both directions: each side is a storage of its own.
            try expectIndexed(storage.membersSQL, "\(name) members")
            try expectIndexed("SELECT * FROM \(SQL.quoteIdentifier(storage.target)) WHERE \"_id\" IN (\(storage.membersSQL(owner: "?")))",
                              "\(name) traversal fetch")
            try expectIndexed("SELECT \(storage.countSQL(owner: "?")), \(storage.containsSQL(owner: "?"))", "\(name) count, contains")
            // The member rows a closure (`contains { … }`, `allSatisfy`, `filter { … }.count`) reads.
            try expectIndexed("SELECT \"_m1\".\"_id\" \(storage.memberRowsSQL(owner: "?", alias: "_m1"))", "\(name) member rows")
            // Delete rules and reference checks: one statement per relationship over the set of ids.
            try expectIndexed(storage.referencingSQL(targetsIn: set), "\(name) referencing")
            try expectIndexed(storage.membersSQL(ownersIn: set), "\(name) members of a set")
            if let clear = storage.clearSQL(targetsIn: set) { try expectIndexed(clear, "\(name) nullify") }
            if let clear = storage.clearSQL(ownersIn: DeleteSet.ids(of: storage.model)) { try expectIndexed(clear, "\(name) links of deleted owners") }
            // Delete rules at save: a cascade round and a deny check, one statement each per relationship.
            try expectIndexed(storage.cascadeSQL, "\(name) cascade")
            try expectIndexed(storage.deniedSQL, "\(name) deny")
            // …which read one round (or the rounds from one on) of the delete set through its index: a
            // statement's deletes added to a session's many pending ones cost what they delete.
            for sql in [storage.cascadeSQL, storage.deniedSQL] {
                let reads = try plan(sql).filter { $0.contains("_vein_deleted") && !$0.contains("AS _d") && !$0.contains("(model=? AND id=?)") }
                #expect(!reads.isEmpty && reads.allSatisfy { $0.contains("_vein_deleted_rounds (model=? AND round") }, "\(name): \(reads)")
            }
            if storage.writesLinks {
                try expectIndexed(storage.maxPositionSQL, "\(name) next position")
                try expectIndexed(storage.placeSQL, "\(name) place")
                try expectIndexed(storage.removeSQL, "\(name) remove")
            }
        }
        // The rows of a save's deletes, and the conflict check of rows read earlier: one statement per model.
        for model in f.manifest.models {
            let table = SQL.quoteIdentifier(model.name)
            try expectIndexed("DELETE FROM \(table) WHERE \"_id\" IN \(DeleteSet.ids(of: model.name))", "\(model.name) delete")
            try expectIndexed("SELECT * FROM \(table) WHERE \"_id\" IN (SELECT \"id\" FROM temp.\"_vein_checked\")", "\(model.name) conflict check")
            try expectIndexed("SELECT * FROM \(table) WHERE \"_id\" IN \(DeleteSet.ids(of: model.name))", "\(model.name) conflict check of deletes")
        }
        // The members in order come straight from the (owner, position) index: no sort of the list. Members
        // at one position (a sync's merge of two appends) are ordered by id, which SQLite does per run of
        // equal positions ("RIGHT PART OF ORDER BY"): runs of one member, nearly always.
        let ordered = RelationshipStorage.all(in: f.manifest).filter { $0.isToMany && $0.isCanonical }
        for storage in ordered {
            let steps = try plan(storage.membersSQL)
            #expect(!steps.contains { $0.contains("TEMP B-TREE") && !$0.contains("RIGHT PART OF ORDER BY") }, "\(storage.name): \(steps)")
            #expect(steps.first?.contains("USING INDEX") == true, "\(storage.name): \(steps)")
        }
        #expect(checked > 30)
    }

    /// `vein query`'s traversal and to-many conditions, as the query runner and compiler build them.
    @Test func traversalAndConditionsUseIndexes() throws {
        let f = try Fixture()
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("p")])
        let a = try context.insert("Attachment", ["name": .string("a"), "sizeMiB": .double(1), "post": .string(post.id)])
        try context.save()
        let db = try f.store().database
        let post_ = try #require(f.manifest.model(named: "Post"))
        for condition in ["attachments.count > 1", "attachments.isEmpty", "attachments.contains(#id(\"\(a.id)\"))", "tags.count == 0"] {
            let typed = try TypeChecker.checkPredicate(condition, model: post_, manifest: f.manifest)
            let fragment = try #require(SQLCompiler(table: "\"Post\"", model: post_, manifest: f.manifest).condition(typed), "\(condition)")
            #expect(fragment.isExact)
            let lines = try db.rows("EXPLAIN QUERY PLAN SELECT \"_id\" FROM \"Post\" WHERE \(fragment.sql)", fragment.arguments).compactMap { $0[3].string }
            // The outer query reads Post (that is the query); the relationship never scans.
            #expect(!lines.contains { $0.hasPrefix("SCAN TABLE Attachment") || $0.hasPrefix("SCAN TABLE _vein_link") }, "\(condition): \(lines)")
            #expect(try db.rows("SELECT \"_id\" FROM \"Post\" WHERE \(fragment.sql)", fragment.arguments).count
                    == (condition.hasPrefix("attachments.count") || condition.hasPrefix("attachments.isEmpty") ? 0 : 1), "\(condition)")
        }
        let runner = QueryRunner(context: try f.context())
        guard case .objects(_, let members) = try runner.run("Post(#id(\"\(post.id)\")).attachments") else { Issue.record("no objects"); return }
        #expect(members.map(\.id) == [a.id])
    }

    // MARK: Context

    /// Link, unlink and reorder keep both sides and the order, and write only the links that change.
    @Test func linkUnlinkReorderWriteOnlyChangedLinks() throws {
        let f = try Fixture()
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("p")])
        let names = ["a", "b", "c", "d", "e"]
        let items = try names.map { try context.insert("Attachment", ["name": .string($0), "sizeMiB": .double(1), "post": .string(post.id)]) }
        try context.save()
        let db = try context.database
        /// The member rows whose (post, position) a change rewrote.
        func written(_ body: () throws -> Void) throws -> [String] {
            let sql = #"SELECT "name", "post", "_vein_pos_attachments" FROM "Attachment" ORDER BY "name""#
            let before = try db.rows(sql)
            try body()
            let after = try db.rows(sql)
            return zip(before, after).filter { $0 != $1 }.map { $0.0[0].string ?? "" }
        }
        func stored() throws -> [String] {
            let reader = try f.context()
            return try reader.object("Post", id: post.id)!.related("attachments").map { try $0["name"].stringValue ?? "" }
        }
        #expect(try stored() == names)
        // Swap the last two: the first three keep their positions; two links are written.
        #expect(try written {
            try post.set("attachments", .array([0, 1, 2, 4, 3].map { .string(items[$0].id) }))
            try context.save()
        } == ["d", "e"])
        #expect(try stored() == ["a", "b", "c", "e", "d"])
        // Unlink one from the to-one side: its row only.
        #expect(try written {
            try items[1].set("post", .null)
            try context.save()
        } == ["b"])
        #expect(try stored() == ["a", "c", "e", "d"])
        #expect(try post["attachments"] == .array(["a", "c", "e", "d"].map { n in .string(items[names.firstIndex(of: n)!].id) }))
        // Many-to-many: the canonical side keeps the order given; the inverse side follows.
        let t1 = try context.insert("Tag", ["name": .string("t1")]), t2 = try context.insert("Tag", ["name": .string("t2")])
        try post.set("tags", .array([.string(t2.id), .string(t1.id)]))
        try context.save()
        let other = try f.context()
        #expect(try other.object("Post", id: post.id)!["tags"] == .array([.string(t2.id), .string(t1.id)]))
        #expect(try other.object("Tag", id: t1.id)!["posts"] == .array([.string(post.id)]))
        try other.object("Tag", id: t2.id)!.set("posts", .array([]))
        try other.save()
        let reader = try f.context()
        #expect(try reader.object("Post", id: post.id)!["tags"] == .array([.string(t1.id)]))
        #expect(try StoreVerifier.verify(try f.store()).isClean)
    }

    /// Linking one object into a relationship of 20,000 touches about as many pages as linking it into an
    /// empty one: the list is never read or rewritten (the position is MAX + 1 through the index).
    @Test func linkingIntoALargeRelationshipIsNotProportionalToItsSize() throws {
        let f = try Fixture()
        let setup = try f.context()
        let big = try setup.insert("Post", ["title": .string("big")]), empty = try setup.insert("Post", ["title": .string("empty")])
        for n in 0..<20_000 {
            try setup.insert("Attachment", ["name": .string("a\(n)"), "sizeMiB": .double(1), "post": .string(big.id)])
            if n % 5_000 == 4_999 { try setup.save() }
        }
        try setup.save()
        func pagesTouched(linkingInto post: String) throws -> (pages: Int32, loaded: Bool) {
            let context = try f.context()
            let db = try context.database
            var hit: Int32 = 0, miss: Int32 = 0, high: Int32 = 0
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_HIT, &hit, &high, 1)
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_MISS, &miss, &high, 1)
            let owner = try #require(try context.object("Post", id: post))
            try context.insert("Attachment", ["name": .string("new"), "sizeMiB": .double(1), "post": .string(post)])
            try context.save()
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_HIT, &hit, &high, 0)
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_MISS, &miss, &high, 0)
            return (hit + miss, !owner.unloaded.contains(owner.layout.index["attachments"]!))
        }
        let small = try pagesTouched(linkingInto: empty.id)
        let large = try pagesTouched(linkingInto: big.id)
        print("pages touched linking one attachment: empty post \(small.pages), post of 20,000 \(large.pages)")
        #expect(!small.loaded && !large.loaded, "the owner's list is not read")
        // 20,000 ids are about 150 pages of index; a read or rewrite of the list would show them.
        #expect(large.pages <= small.pages + 12)
        let reader = try f.context()
        let last = try reader.object("Post", id: big.id)!.related("attachments").last
        #expect(try last?["name"] == .string("new"))
    }

    /// Deleting a set of rows applies the delete rules in the store with one statement per relationship:
    /// nullify clears the references of rows the context never loaded, cascade and deny hold, and the
    /// reference check fails a save that would leave an id naming no row.
    @Test func deleteRulesInTheStore() throws {
        let f = try Fixture()
        let setup = try f.context()
        let p1 = try setup.insert("Post", ["title": .string("p1")]), p2 = try setup.insert("Post", ["title": .string("p2")])
        let a1 = try setup.insert("Attachment", ["name": .string("a1"), "sizeMiB": .double(200), "post": .string(p1.id)])
        let a2 = try setup.insert("Attachment", ["name": .string("a2"), "sizeMiB": .double(1), "post": .string(p1.id)])
        let a3 = try setup.insert("Attachment", ["name": .string("a3"), "sizeMiB": .double(300), "post": .string(p2.id)])
        let tag = try setup.insert("Tag", ["name": .string("t")])
        try p2.set("tags", .array([.string(tag.id)]))
        try p1.set("related", .array([.string(p2.id)]))
        try setup.save()

        // Attachments deleted by a query: their posts are never loaded, their lists follow.
        let context = try f.context()
        _ = try QueryRunner(context: context).run("delete Attachment where sizeMiB > 100", save: true)
        let check = try f.context()
        #expect(try check.object("Post", id: p1.id)!["attachments"] == .array([.string(a2.id)]))
        #expect(try check.object("Post", id: p2.id)!["attachments"] == .array([]))
        #expect(try check.object("Attachment", id: a1.id) == nil && check.object("Attachment", id: a3.id) == nil)

        // Deny: a tag listing a post refuses; cascade: deleting p1 deletes a2; nullify: p1 leaves p2's
        // inverse-less `related` list of nobody, and the link row goes.
        let deleter = try f.context()
        // (The deleter holds no post: the tag's list is not read, the store's deny refuses at save.)
        try deleter.delete(try deleter.object("Tag", id: tag.id)!)
        #expect(throws: ContextError.deleteDenied(model: "Tag", id: tag.id, relationship: "posts", count: 1)) { try deleter.save() }
        deleter.rollback()
        try deleter.delete(try deleter.object("Post", id: p2.id)!)
        try deleter.save()
        let after = try f.context()
        #expect(try after.object("Post", id: p1.id)!["related"] == .array([]))
        #expect(try after.object("Tag", id: tag.id)!["posts"] == .array([]))
        #expect(try after.database.scalar(#"SELECT count(*) FROM "_vein_link_Post_related""#) == .integer(0))
        try after.delete(try after.object("Post", id: p1.id)!)
        try after.save()
        #expect(try f.context().fetchCount(ObjectFetch(model: "Attachment")) == 0)
        #expect(try StoreVerifier.verify(try f.store()).isClean)
    }
}
