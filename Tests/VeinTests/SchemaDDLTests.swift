import Foundation
import Testing
@testable import Vein

/// The SQL a schema becomes (docs/store-format.md).
@Suite struct SchemaDDLTests {
    @Test func blogTablesAndIndexes() throws {
        let blog = try Fixtures.blogManifest()
        #expect(SchemaDDL.createStatements(for: blog) == [
            """
            CREATE TABLE "Post" (
              "_id" TEXT PRIMARY KEY NOT NULL,
              "title" TEXT NOT NULL,
              "content" TEXT NOT NULL,
              "views" INTEGER NOT NULL DEFAULT 0,
              "publishedAt" REAL
            )
            """,
            #"CREATE INDEX "Post.publishedAt" ON "Post" ("publishedAt")"#,
            """
            CREATE TABLE "Attachment" (
              "_id" TEXT PRIMARY KEY NOT NULL,
              "name" TEXT NOT NULL,
              "fileType" TEXT NOT NULL CHECK ("fileType" IN ('png', 'jpg', 'gif', 'swift')),
              "sizeMiB" REAL NOT NULL,
              "data" BLOB,
              "post" TEXT,
              "_vein_pos_attachments" INTEGER
            )
            """,
            #"CREATE INDEX "Attachment.post._vein_pos_attachments" ON "Attachment" ("post", "_vein_pos_attachments")"#,
        ])
    }

    @Test func temporaryTableNameForMigrations() throws {
        let blog = try Fixtures.blogManifest()
        let post = try #require(blog.model(named: "Post"))
        let statements = SchemaDDL.createStatements(for: post, tableName: "_vein_new_Post", in: blog)
        #expect(statements.first?.hasPrefix(#"CREATE TABLE "_vein_new_Post" ("#) == true)
        // Index names stay the model's, the table is the temporary one.
        #expect(statements.last == #"CREATE INDEX "Post.publishedAt" ON "_vein_new_Post" ("publishedAt")"#)
    }

    static let columnCases: [(FieldSchema, String)] = [
        (FieldSchema(name: "s", type: .string), #""s" TEXT NOT NULL"#),
        (FieldSchema(name: "s", type: .string, isOptional: true), #""s" TEXT"#),
        (FieldSchema(name: "s", type: .string, isUnique: true, defaultValue: .string("it's")), #""s" TEXT NOT NULL UNIQUE DEFAULT 'it''s'"#),
        (FieldSchema(name: "i", type: .int, defaultValue: .int(-5)), #""i" INTEGER NOT NULL DEFAULT -5"#),
        (FieldSchema(name: "d", type: .double, defaultValue: .double(1.5)), #""d" REAL NOT NULL DEFAULT 1.5"#),
        (FieldSchema(name: "d", type: .double, defaultValue: .int(2)), #""d" REAL NOT NULL DEFAULT 2.0"#),
        (FieldSchema(name: "b", type: .bool, defaultValue: .bool(true)), #""b" INTEGER NOT NULL DEFAULT 1 CHECK ("b" IN (0, 1))"#),
        (FieldSchema(name: "b", type: .bool, isOptional: true), #""b" INTEGER CHECK ("b" IN (0, 1))"#),
        (FieldSchema(name: "t", type: .date, defaultValue: .string("2026-01-31T12:00:00Z")), #""t" REAL NOT NULL DEFAULT 1769860800.0"#),
        (FieldSchema(name: "x", type: .data, isLazy: true, defaultValue: .string("AAEC/w==")), #""x" BLOB NOT NULL DEFAULT X'000102ff'"#),
        (FieldSchema(name: "u", type: .uuid, defaultValue: .string("e621e1f8-c36c-495a-93fc-0c247a3e6e5f")),
         #""u" TEXT NOT NULL DEFAULT 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'"#),
        (FieldSchema(name: "e", type: .enum, defaultValue: .string("b"), enumValues: [.string("a"), .string("b")]),
         #""e" TEXT NOT NULL DEFAULT 'b' CHECK ("e" IN ('a', 'b'))"#),
        (FieldSchema(name: "e", type: .enum, isOptional: true, enumValues: [.int(1), .int(2)]), #""e" INTEGER CHECK ("e" IN (1, 2))"#),
        (FieldSchema(name: "j", type: .json, defaultValue: .object(JSONObject([("b", .int(1)), ("a", .string("x"))]))),
         #""j" TEXT NOT NULL DEFAULT '{"a":"x","b":1}'"#),
        (FieldSchema(name: "weird\"name", type: .int), #""weird""name" INTEGER NOT NULL"#),
    ]

    @Test(arguments: columnCases)
    func columnDefinition(field: FieldSchema, expected: String) {
        #expect(SchemaDDL.columnDefinition(field) == expected)
    }

    @Test func sqlLiterals() {
        #expect(SchemaDDL.sqlLiteral(.null) == "NULL")
        #expect(SchemaDDL.sqlLiteral(.integer(Int64.min)) == "-9223372036854775808")
        #expect(SchemaDDL.sqlLiteral(.real(0.1)) == "0.1")
        #expect(SchemaDDL.sqlLiteral(.real(.infinity)) == "NULL")
        #expect(SchemaDDL.sqlLiteral(.text("a'b")) == "'a''b'")
        #expect(SchemaDDL.sqlLiteral(.blob(Data())) == "X''")
        #expect(SchemaDDL.sqlLiteral(.blob(Data([0xDE, 0xAD]))) == "X'dead'")
    }

    @Test func indexesForToOneRelationships() throws {
        let m = try ManifestParser.parse(ManifestTests.manifest("""
            User: { fields: { name: 'string' } },
            Post: { fields: { title: 'string', views: 'int' },
                    relationships: { author: 'User', editor: 'User', readers: '[User]' },
                    indexes: [['author', 'views'], ['title'], ['views', 'editor']] },
            """), file: "m")
        let post = try #require(m.model(named: "Post"))
        // author already leads a declared index; editor only appears second, so it gets its own.
        #expect(SchemaDDL.indexes(for: post, in: m) == [
            SchemaDDL.Index(name: "Post.author.views", columns: ["author", "views"]),
            SchemaDDL.Index(name: "Post.title", columns: ["title"]),
            SchemaDDL.Index(name: "Post.views.editor", columns: ["views", "editor"]),
            SchemaDDL.Index(name: "Post.editor", columns: ["editor"]),
        ])
        #expect(SchemaDDL.indexes(for: try #require(m.model(named: "User")), in: m).isEmpty)
        #expect(SchemaDDL.Index(name: "Post.author.views", columns: ["author", "views"]).sql(table: "Post")
                == #"CREATE INDEX "Post.author.views" ON "Post" ("author", "views")"#)
        // A one-way to-many is a link table, not a column (store format 2).
        #expect(!SchemaDDL.createTable(post, tableName: "Post", in: m).contains(#""readers""#))
        #expect(SchemaDDL.createTable(post, tableName: "Post", in: m).contains(#""editor" TEXT"#))
        #expect(SchemaDDL.createStatements(for: m).contains(
            #"CREATE TABLE "_vein_link_Post_readers" ("owner" TEXT NOT NULL, "target" TEXT NOT NULL, "position" INTEGER NOT NULL, PRIMARY KEY ("owner", "target"))"#))
    }

    /// The DDL runs on SQLCipher 3.4.1 and the constraints hold.
    @Test func ddlRunsAndEnforcesTypesDomains() throws {
        let m = try ManifestParser.parse(ManifestTests.manifest("""
            Thing: { fields: {
              name: 'string unique', flag: { type: 'bool', default: false }, kind: { type: 'enum', values: ['a', 'b'], default: 'a' },
              level: { type: 'enum?', values: [1, 2] }, at: { type: 'date', default: '1969-07-20T20:17:40Z' },
              blob: { type: 'data', default: '' }, meta: { type: 'json', default: { k: [1] } }, n: { type: 'double', default: -0.5 },
            }, relationships: { parent: 'Thing', children: '[Thing]' }, indexes: [['kind', 'name']] },
            """), file: "m")
        let db = try Database(path: ":memory:", mode: .create, key: nil)
        for statement in SchemaDDL.createStatements(for: m) { try db.execute(statement) }
        try db.execute(#"INSERT INTO "Thing" ("_id", "name") VALUES ('1', 'x')"#)
        #expect(try db.rows(#"SELECT "flag", "kind", "level", "at", "blob", "meta", "n", "parent" FROM "Thing""#) == [[
            .integer(0), .text("a"), .null, .real(-14_182_940), .blob(Data()), .text(#"{"k":[1]}"#), .real(-0.5), .null,
        ]])
        let badBool = try #require(throws: DatabaseError.self) { try db.execute(#"INSERT INTO "Thing" ("_id", "name", "flag") VALUES ('2', 'y', 2)"#) }
        #expect(badBool.extendedCode == 275)
        let badEnum = try #require(throws: DatabaseError.self) { try db.execute(#"INSERT INTO "Thing" ("_id", "name", "kind") VALUES ('2', 'y', 'c')"#) }
        #expect(badEnum.extendedCode == 275)
        let badLevel = try #require(throws: DatabaseError.self) { try db.execute(#"INSERT INTO "Thing" ("_id", "name", "level") VALUES ('2', 'y', 3)"#) }
        #expect(badLevel.extendedCode == 275)
        let duplicate = try #require(throws: DatabaseError.self) { try db.execute(#"INSERT INTO "Thing" ("_id", "name") VALUES ('2', 'x')"#) }
        #expect(duplicate.extendedCode == 2067)
        let noName = try #require(throws: DatabaseError.self) { try db.execute(#"INSERT INTO "Thing" ("_id") VALUES ('3')"#) }
        #expect(noName.extendedCode == 1299)
        let samePK = try #require(throws: DatabaseError.self) { try db.execute(#"INSERT INTO "Thing" ("_id", "name") VALUES ('1', 'z')"#) }
        #expect(samePK.extendedCode == 1555)
        let noID = try #require(throws: DatabaseError.self) { try db.execute(#"INSERT INTO "Thing" ("name") VALUES ('w')"#) }
        #expect(noID.extendedCode == 1299)
        try db.execute(#"INSERT INTO "Thing" ("_id", "name", "level", "flag") VALUES ('4', 'v', 2, 1)"#)
        let indexes = try db.rows(#"PRAGMA index_list("Thing")"#).compactMap { $0[1].string }
        #expect(indexes.contains("Thing.kind.name"))
        #expect(indexes.contains("Thing.parent"))
    }
}
