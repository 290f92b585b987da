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
        func post(_ id: String = ULID.make().description, attachments: String = "[]", views: DatabaseValue = 0) throws -> String {
            try db.execute(#"INSERT INTO "Post" ("id", "title", "content", "views", "attachments") VALUES (?, 't', 'c', ?, ?)"#,
                           [.text(id), views, .text(attachments)])
            return id
        }

        @discardableResult
        func attachment(_ id: String = ULID.make().description, post: String? = nil, fileType: String = "png") throws -> String {
            try db.execute(#"INSERT INTO "Attachment" ("id", "name", "fileType", "sizeMiB", "post") VALUES (?, 'a.png', ?, 0.5, ?)"#,
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
        try f.db.execute(#"UPDATE "Post" SET "attachments" = ? WHERE "id" = ?"#, [.text("[\"\(a2)\",\"\(a1)\"]"), .text(p)])
        try f.post()
        try f.attachment()
        #expect(try f.problems() == [])
    }

    @Test func danglingToOne() throws {
        let f = try Fixture()
        let a = try f.attachment(post: Self.missing)
        // A dangling id is reported once, as dangling: the missing row cannot list anything back.
        #expect(try f.problems() == ["relationships: Attachment.post: 1 rows point to Post rows that do not exist (\(a))"])
        #expect(try !f.verify().isClean)
    }

    @Test func danglingToMany() throws {
        let f = try Fixture()
        let p = try f.post(attachments: "[\"\(Self.missing)\"]")
        #expect(try f.problems() == ["relationships: Post.attachments: 1 rows point to Attachment rows that do not exist (\(p))"])
    }

    @Test(arguments: ["{}", "not json", "[1, 2]", "\"01ARZ3NDEKTSV4RRFFQ69G5FAV\"", "[null]"])
    func toManyThatIsNotAnArrayOfIDs(value: String) throws {
        let f = try Fixture()
        let p = try f.post(attachments: value)
        #expect(try f.problems() == ["relationships: Post.attachments: 1 rows do not hold a JSON array of ids (\(p))"])
    }

    @Test func toManyListingAnIDTwice() throws {
        let f = try Fixture()
        let p = try f.post()
        let a = try f.attachment(post: p)
        try f.db.execute(#"UPDATE "Post" SET "attachments" = ? WHERE "id" = ?"#, [.text("[\"\(a)\",\"\(a)\"]"), .text(p)])
        #expect(try f.problems() == ["relationships: Post.attachments: 1 rows list the same id twice (\(p))"])
    }

    @Test func inverseMismatchBothWays() throws {
        let f = try Fixture()
        // The post lists the attachment, which does not point back.
        let p1 = try f.post()
        let a1 = try f.attachment()
        try f.db.execute(#"UPDATE "Post" SET "attachments" = ? WHERE "id" = ?"#, [.text("[\"\(a1)\"]"), .text(p1)])
        #expect(try f.problems() == ["relationships: Post.attachments: 1 rows are not listed back by Attachment.post (\(p1))"])

        // An attachment points to a post that does not list it.
        let p2 = try f.post()
        let a2 = try f.attachment(post: p2)
        #expect(try f.problems() == [
            "relationships: Attachment.post: 1 rows are not listed back by Post.attachments (\(a2))",
            "relationships: Post.attachments: 1 rows are not listed back by Attachment.post (\(p1))",
        ])
    }

    @Test func wrongValueTypes() throws {
        let f = try Fixture()
        let p = try f.post(views: "many")
        let q = try f.post(views: .real(1.5))
        try f.db.execute(#"UPDATE "Post" SET "title" = X'00', "publishedAt" = '2026-01-01' WHERE "id" = ?"#, [.text(p)])
        try f.db.execute(#"UPDATE "Attachment" SET "data" = 'text, not data'"#)
        let a = try f.attachment()
        try f.db.execute(#"UPDATE "Attachment" SET "sizeMiB" = 'big', "data" = 'text' WHERE "id" = ?"#, [.text(a)])
        let problems = try f.problems()
        #expect(problems == [
            "values: Post.title: 1 values are not of type string (\(p))",
            "values: Post.views: 2 values are not of type int (\([p, q].joined(separator: ", ")))",
            "values: Post.publishedAt: 1 values are not of type date (\(p))",
            "values: Attachment.sizeMiB: 1 values are not of type double (\(a))",
            "values: Attachment.data: 1 values are not of type data (\(a))",
        ])
    }

    @Test func idsThatAreNotULIDs() throws {
        let f = try Fixture()
        try f.post("not-a-ulid")
        try f.post("01arz3ndektsv4rrffq69g5fav")  // lowercase parses: a ULID
        #expect(try f.problems() == ["values: Post.id: 1 ids are not ULIDs (not-a-ulid)"])
    }

    @Test func enumValuesOutsideTheDomain() throws {
        let f = try Fixture()
        try f.db.execute("PRAGMA ignore_check_constraints = ON")
        let a = try f.attachment(fileType: "bmp")
        try f.db.execute("PRAGMA ignore_check_constraints = OFF")
        #expect(try f.problems() == ["values: Attachment.fileType: 1 values are not valid enum values (\(a))"])
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
        try f.db.execute(#"DROP INDEX "Attachment.post""#)
        #expect(try f.problems() == ["schema: index Post.publishedAt is missing", "schema: index Attachment.post is missing"])
    }

    @Test func missingTableAndChangedColumns() throws {
        let f = try Fixture()
        try f.db.execute(#"DROP TABLE "Attachment""#)
        try f.db.execute(#"ALTER TABLE "Post" ADD COLUMN "extra" TEXT"#)
        #expect(try f.problems() == [
            "schema: table Post does not match the schema: it has columns [id, title, content, views, publishedAt, attachments, extra], the schema expects [id, title, content, views, publishedAt, attachments]",
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
            "schema: index Post.publishedAt is not on the columns the schema declares",
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
