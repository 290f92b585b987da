import Foundation
import Testing
@testable import Vein

/// `vein verify`'s checks, on stores damaged through raw SQL.
@Suite struct StoreVerifierTests {
    /// A fresh plaintext blog store, open, in its own directory.
    final class Fixture {
        let dir: TempDir
        let path: String
        private(set) var store: Store

        init() throws {
            dir = try TempDir()
            path = dir.path("v.vein")
            _ = try StoreCreator.create(at: path, manifest: try Fixtures.blogManifest(), protection: .plaintext)
            store = try Store.open(path, keys: StoreTests.keys())
        }

        deinit { dir.cleanUp() }

        var db: Database { store.database }

        /// Reopens (the meta is read at open).
        func reopen() throws { store = try Store.open(path, keys: StoreTests.keys()) }

        func verify() throws -> StoreVerifier.Report { try StoreVerifier.verify(store) }

        /// Every problem as "check: text".
        func problems() throws -> [String] {
            try verify().checks.flatMap { check in check.problems.map { "\(check.name): \($0)" } }
        }

        @discardableResult
        func post(_ id: String = ULID.make().description, views: DatabaseValue = 0) throws -> String {
            try db.execute(#"INSERT INTO "Post" ("_id", "title", "content", "views") VALUES (?, 't', 'c', ?)"#, [.text(id), views])
            return id
        }

        @discardableResult
        func attachment(_ id: String = ULID.make().description, post: String? = nil, fileType: String = "png") throws -> String {
            try db.execute(#"INSERT INTO "Attachment" ("_id", "name", "fileType", "sizeMiB", "post") VALUES (?, 'a.png', ?, 0.5, ?)"#,
                           [.text(id), .text(fileType), post.map(DatabaseValue.text) ?? .null])
            return id
        }
    }

    static let missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"

    @Test func freshStoreIsClean() throws {
        let f = try Fixture()
        let report = try f.verify()
        #expect(report.isClean)
        #expect(report.checks.map(\.name) == ["integrity", "schema", "values", "relationships"])
        #expect(report.checks.allSatisfy { $0.isClean })
    }

    @Test func freshEncryptedStoreIsClean() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        _ = try StoreCreator.create(at: dir.path("e.vein"), manifest: try Fixtures.blogManifest(), protection: .encrypted(StoreTests.rawKeyOptions))
        #expect(try StoreVerifier.verify(try Store.open(dir.path("e.vein"), keys: StoreTests.rawKeyOptions)).isClean)
    }

    @Test func consistentDataIsClean() throws {
        let f = try Fixture()
        let p = try f.post()
        let a1 = try f.attachment(post: p), a2 = try f.attachment(post: p)
        try f.db.execute(#"UPDATE "Attachment" SET "_vein_pos_attachments" = CASE "_id" WHEN ? THEN 2 ELSE 1 END WHERE "post" = ?"#, [.text(a1), .text(p)])
        try f.post()
        try f.attachment()
        #expect(try f.problems() == [])
    }

    @Test func danglingToOne() throws {
        let f = try Fixture()
        let a = try f.attachment(post: Self.missing)
        // A dangling id is reported once, as dangling: the missing row cannot list anything back.
        #expect(try f.problems() == ["relationships: Attachment.post: 1 row points to Post rows that do not exist (\(a))"])
        #expect(try !f.verify().isClean)
    }

    /// List positions the context never writes are damage: a member of an existing owner without a
    /// whole-number position from 1, on a to-many kept through its inverse's column and on a link table.
    /// Two members at one position are not (a sync's merge of two appends leaves them so, and they are
    /// ordered by id), nor a position left on a row in no list (a sync detaches a member so).
    @Test func positionsTheContextNeverWrites() throws {
        let f = try Fixture()
        func place(_ id: String, _ position: DatabaseValue) throws {
            try f.db.execute(#"UPDATE "Attachment" SET "_vein_pos_attachments" = ? WHERE "_id" = ?"#, [position, .text(id)])
        }
        let p1 = try f.post(), p2 = try f.post(), p3 = try f.post(), p4 = try f.post()
        let a1 = try f.attachment(post: p1), a2 = try f.attachment(post: p1)
        try place(a1, 1)
        try place(a2, 3)  // a gap an unlink leaves: fine
        try f.attachment(post: p2)  // no position
        try place(try f.attachment(post: p3), 0)
        try place(try f.attachment(post: p3), .text("2"))
        let b1 = try f.attachment(post: p4), b2 = try f.attachment(post: p4)
        try place(b1, 2)
        try place(b2, 2)
        let stray = try f.attachment()
        try place(stray, 5)
        #expect(try f.problems() == [
            "relationships: Post.attachments: 2 rows list members without a position (_vein_pos_attachments NULL or not a whole number from 1) (\(p2), \(p3))",
        ])

        let dir = try TempDir()
        defer { dir.cleanUp() }
        let manifest = try ManifestParser.parse(ManifestTests.manifest("""
            Person: { fields: { name: 'string' }, relationships: { tags: '[Tag]' } },
            Tag: { fields: { n: 'string' } },
            """), file: "m")
        _ = try StoreCreator.create(at: dir.path("l.vein"), manifest: manifest, protection: .plaintext)
        let store = try Store.open(dir.path("l.vein"), keys: StoreTests.keys())
        let p = ULID.make().description, q = ULID.make().description, t1 = ULID.make().description, t2 = ULID.make().description
        try store.database.execute(#"INSERT INTO "Person" ("_id", "name") VALUES (?, 'p'), (?, 'q')"#, [.text(p), .text(q)])
        try store.database.execute(#"INSERT INTO "Tag" ("_id", "n") VALUES (?, 'a'), (?, 'b')"#, [.text(t1), .text(t2)])
        try store.database.execute(#"INSERT INTO "_vein_link_Person_tags" VALUES (?, ?, 1), (?, ?, 4), (?, ?, -1)"#,
                                   [.text(p), .text(t1), .text(p), .text(t2), .text(q), .text(t1)])
        #expect(try StoreVerifier.verify(store).checks.flatMap(\.problems) == ["Person.tags: 1 row lists members without a position (not a whole number from 1) (\(q))"])
        try store.database.execute(#"UPDATE "_vein_link_Person_tags" SET "position" = 1 WHERE "owner" = ?"#, [.text(p)])
        try store.database.execute(#"UPDATE "_vein_link_Person_tags" SET "position" = 1 WHERE "owner" = ?"#, [.text(q)])
        #expect(try StoreVerifier.verify(store).checks.flatMap(\.problems) == [])
        // Ordered by position, then id.
        let members = try store.database.rows(RelationshipStorage.all(in: manifest).first { $0.name == "tags" }!.membersSQL, [.text(p)]).map { $0[0].string! }
        #expect(members == [t1, t2].sorted())
    }

    /// Store format 2: a link table (many-to-many, one-way to-many) naming a row that is gone, and a
    /// to-one pair whose sides disagree. (A to-many kept through its inverse's column, and the two sides
    /// of a many-to-many, share one storage: they cannot disagree, list an id twice or hold malformed JSON.)
    @Test func danglingLinksAndToOnePairs() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let manifest = try ManifestParser.parse(ManifestTests.manifest("""
            Person: { fields: { name: 'string' }, relationships: {
                passport: { to: 'Passport', inverse: 'holder' }, tags: '[Tag]', friends: { to: 'Person', many: true, inverse: 'friendOf' },
                friendOf: { to: 'Person', many: true, inverse: 'friends' } } },
            Passport: { fields: { n: 'string' }, relationships: { holder: { to: 'Person', inverse: 'passport' } } },
            Tag: { fields: { n: 'string' } },
            """), file: "m")
        let path = dir.path("l.vein")
        _ = try StoreCreator.create(at: path, manifest: manifest, protection: .plaintext)
        let store = try Store.open(path, keys: StoreTests.keys())
        let db = store.database
        func problems() throws -> [String] {
            try StoreVerifier.verify(store).checks.flatMap { check in check.problems.map { "\(check.name): \($0)" } }
        }
        let p = ULID.make().description, q = ULID.make().description, pass = ULID.make().description
        try db.execute(#"INSERT INTO "Person" ("_id", "name", "passport") VALUES (?, 'p', ?), (?, 'q', NULL)"#, [.text(p), .text(pass), .text(q)])
        try db.execute(#"INSERT INTO "Passport" ("_id", "n", "holder") VALUES (?, 'x', ?)"#, [.text(pass), .text(p)])
        try db.execute(#"INSERT INTO "_vein_link_Person_friendOf" VALUES (?, ?, 1)"#, [.text(p), .text(q)])
        #expect(try problems() == [])
        try db.execute(#"INSERT INTO "_vein_link_Person_tags" VALUES (?, ?, 1)"#, [.text(p), .text(Self.missing)])
        try db.execute(#"INSERT INTO "_vein_link_Person_friendOf" VALUES (?, ?, 2)"#, [.text(Self.missing), .text(q)])
        try db.execute(#"UPDATE "Passport" SET "holder" = ?"#, [.text(q)])
        #expect(try problems() == [
            "relationships: Person.passport: 1 row is not listed back by Passport.holder (\(p))",
            "relationships: Person.tags: 1 row points to Tag rows that do not exist (\(p))",
            // friendOf sorts first, so its name is the shared table's; a missing owner there is a
            // dangling id of the other side, friends.
            "relationships: Person.friends: 1 row points to Person rows that do not exist (\(q))",
            "relationships: Passport.holder: 1 row is not listed back by Person.passport (\(pass))",
        ])
    }

    @Test func wrongValueTypes() throws {
        let f = try Fixture()
        let p = try f.post(views: "many")
        let q = try f.post(views: .real(1.5))
        try f.db.execute(#"UPDATE "Post" SET "title" = X'00', "publishedAt" = '2026-01-01' WHERE "_id" = ?"#, [.text(p)])
        try f.db.execute(#"UPDATE "Attachment" SET "data" = 'text, not data'"#)
        let a = try f.attachment()
        try f.db.execute(#"UPDATE "Attachment" SET "sizeMiB" = 'big', "data" = 'text' WHERE "_id" = ?"#, [.text(a)])
        let problems = try f.problems()
        #expect(problems == [
            "values: Post.title: 1 value is not of type string (\(p))",
            "values: Post.views: 2 values are not of type int (\([p, q].joined(separator: ", ")))",
            "values: Post.publishedAt: 1 value is not of type date (\(p))",
            "values: Attachment.sizeMiB: 1 value is not of type double (\(a))",
            "values: Attachment.data: 1 value is not of type data (\(a))",
        ])
    }

    @Test func idsThatAreNotULIDs() throws {
        let f = try Fixture()
        try f.post("not-a-ulid")
        try f.post("01arz3ndektsv4rrffq69g5fav")  // lowercase parses: a ULID
        #expect(try f.problems() == ["values: Post._id: 1 id is not a ULID (not-a-ulid)"])
    }

    @Test func enumValuesOutsideTheDomain() throws {
        let f = try Fixture()
        try f.db.execute("PRAGMA ignore_check_constraints = ON")
        let a = try f.attachment(fileType: "bmp")
        try f.db.execute("PRAGMA ignore_check_constraints = OFF")
        #expect(try f.problems() == ["values: Attachment.fileType: 1 value is not a valid enum value (\(a))"])
    }

    @Test func manyProblemsNameFiveSamples() throws {
        let f = try Fixture()
        var ids: [String] = []
        for _ in 0..<7 { ids.append(try f.attachment(post: Self.missing)) }
        let problems = try f.problems()
        #expect(problems == ["relationships: Attachment.post: 7 rows point to Post rows that do not exist (\(ids.prefix(5).joined(separator: ", ")), …)"])
    }

    @Test func extraTable() throws {
        let f = try Fixture()
        try f.db.execute("CREATE TABLE Extra (x)")
        let report = try f.verify()
        #expect(try f.problems() == ["schema: table Extra is not part of the schema"])
        // Value and relationship checks are skipped when the schema does not match.
        #expect(report.checks.map(\.name) == ["integrity", "schema"])
    }

    @Test func missingIndex() throws {
        let f = try Fixture()
        try f.db.execute(#"DROP INDEX "Post.publishedAt""#)
        #expect(try f.problems() == ["schema: index Post.publishedAt is missing"])
        try f.db.execute(#"DROP INDEX "Attachment.post._vein_pos_attachments""#)
        #expect(try f.problems() == ["schema: index Post.publishedAt is missing", "schema: index Attachment.post._vein_pos_attachments is missing"])
    }

    @Test func missingTableAndChangedColumns() throws {
        let f = try Fixture()
        try f.db.execute(#"DROP TABLE "Attachment""#)
        try f.db.execute(#"ALTER TABLE "Post" ADD COLUMN "extra" TEXT"#)
        #expect(try f.problems() == [
            "schema: table Post does not match the schema: it has columns [_id, title, content, views, publishedAt, extra], the schema expects [_id, title, content, views, publishedAt]",
            "schema: table Attachment is missing",
        ])
    }

    /// Same column names, different constraints or index columns: still found (the stored CREATE text differs).
    @Test func changedConstraintsAndIndexColumns() throws {
        let f = try Fixture()
        try f.db.execute(#"DROP INDEX "Post.publishedAt""#)
        try f.db.execute(#"CREATE INDEX "Post.publishedAt" ON "Post" ("title")"#)
        try f.db.execute(#"CREATE INDEX "mine" ON "Post" ("views")"#)
        #expect(try f.problems() == [
            "schema: index Post.publishedAt is not the one the schema declares (its columns or uniqueness differ)",
            "schema: index mine is not part of the schema",
        ])
    }

    @Test func tamperedMeta() throws {
        let f = try Fixture()
        try f.db.execute(#"UPDATE "_vein_meta" SET "value" = 'abc' WHERE "key" = 'manifestSHA256'"#)
        try f.db.execute(#"UPDATE "_vein_meta" SET "value" = '9.9.9' WHERE "key" = 'schemaVersion'"#)
        try f.reopen()
        #expect(try f.problems() == [
            "schema: _vein_meta.manifestSHA256 does not match the stored manifest",
            "schema: _vein_meta.schemaVersion or app disagrees with the stored manifest",
        ])
    }

    @Test func nonCanonicalStoredManifest() throws {
        let f = try Fixture()
        let pretty = JSONWriter.string(try JSONParser.parse(f.store.meta.manifest), pretty: true)
        try f.db.execute(#"UPDATE "_vein_meta" SET "value" = ? WHERE "key" = 'manifest'"#, [.text(pretty)])
        try f.reopen()
        #expect(try f.problems() == ["schema: _vein_meta.manifest is not in canonical form"])
    }

    @Test func verifyWritesNothing() throws {
        let f = try Fixture()
        try f.attachment(post: Self.missing)
        try f.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = try f.dir.bytes("v.vein")
        _ = try f.verify()
        try f.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try f.dir.bytes("v.vein") == before)
    }
}
