import Foundation
import Testing
@testable import Vein

/// Schema manifests (docs/manifest.md): parsing, shorthand, cross references, canonical form and every validation
/// error with the exact text a user sees.
@Suite struct ManifestTests {
    /// A manifest around a `models` body.
    static func manifest(_ models: String, header: String = "vein: 1, app: 'com.example.test', version: '1.0.0',") -> String {
        "{ \(header) models: { \(models) } }"
    }

    private func parse(_ text: String) throws -> SchemaManifest { try ManifestParser.parse(text, file: "m.json5") }

    /// The error lines a manifest gives (empty when it is valid).
    static func errors(_ text: String, file: String = "m.json5") -> [String] {
        do {
            _ = try ManifestParser.parse(text, file: file)
            return []
        } catch {
            return error.lines
        }
    }

    // MARK: The example

    @Test func parsesTheBlogExample() throws {
        let m = try Fixtures.blogManifest()
        #expect(m.app == "com.example.blog")
        #expect(m.version == SchemaVersion(0, 0, 1))
        #expect(m.models.map(\.name) == ["Post", "Attachment"])

        let post = try #require(m.model(named: "Post"))
        #expect(post.fields == [
            FieldSchema(name: "title", type: .string),
            FieldSchema(name: "content", type: .string),
            FieldSchema(name: "views", type: .int, defaultValue: .int(0)),
            FieldSchema(name: "publishedAt", type: .date, isOptional: true),
        ])
        #expect(post.relationships == [
            RelationshipSchema(name: "attachments", target: "Attachment", isToMany: true, inverse: "post", deleteRule: .cascade),
        ])
        #expect(post.indexes == [["publishedAt"]])
        #expect(post.columnNames == ["title", "content", "views", "publishedAt", "attachments"])

        let attachment = try #require(m.model(named: "Attachment"))
        #expect(attachment.fields == [
            FieldSchema(name: "name", type: .string),
            FieldSchema(name: "fileType", type: .enum, enumValues: [.string("png"), .string("jpg"), .string("gif"), .string("swift")]),
            FieldSchema(name: "sizeMiB", type: .double),
            FieldSchema(name: "data", type: .data, isOptional: true, isLazy: true),
        ])
        #expect(attachment.relationships == [RelationshipSchema(name: "post", target: "Post", inverse: "attachments")])
        #expect(attachment.indexes.isEmpty)
        #expect(m.model(named: "Nope") == nil)
        #expect(post.field(named: "views")?.columnType == "INTEGER")
        #expect(attachment.field(named: "fileType")?.columnType == "TEXT")
        #expect(attachment.relationship(named: "post")?.deleteRule == .nullify)
    }

    @Test func loadReadsAFileAndNamesItInErrors() throws {
        let m = try SchemaManifest.load(path: Fixtures.blogPath)
        #expect(m == (try Fixtures.blogManifest()))
        let dir = try TempDir()
        defer { dir.cleanUp() }
        try dir.write("bad.json5", "{ vein: 1 }")
        let error = try #require(throws: ManifestError.self) { try SchemaManifest.load(path: dir.path("bad.json5")) }
        #expect(error.file == dir.path("bad.json5"))
        #expect(error.lines.first?.hasPrefix("\(dir.path("bad.json5")): missing key \"app\"") == true)
        #expect(throws: FileError.notFound(dir.path("missing.json5"))) { try SchemaManifest.load(path: dir.path("missing.json5")) }
    }

    // MARK: Fields

    @Test func shorthandFieldForms() throws {
        let m = try parse(Self.manifest("""
            M: { fields: {
              a: "string", b: "int?", c: "double lazy", d: "bool unique", e: "date? lazy unique",
              f: "data?  lazy", g: "uuid ?", h: "json", i: "string unique lazy",
            } }
            """))
        let fields = try #require(m.model(named: "M")).fields
        #expect(fields == [
            FieldSchema(name: "a", type: .string),
            FieldSchema(name: "b", type: .int, isOptional: true),
            FieldSchema(name: "c", type: .double, isLazy: true),
            FieldSchema(name: "d", type: .bool, isUnique: true),
            FieldSchema(name: "e", type: .date, isOptional: true, isLazy: true, isUnique: true),
            FieldSchema(name: "f", type: .data, isOptional: true, isLazy: true),
            FieldSchema(name: "g", type: .uuid, isOptional: true),
            FieldSchema(name: "h", type: .json),
            FieldSchema(name: "i", type: .string, isLazy: true, isUnique: true),
        ])
    }

    @Test func objectFieldForms() throws {
        let m = try parse(Self.manifest("""
            M: { fields: {
              a: { type: "string" },
              b: { type: "int", optional: true, unique: true },
              c: { type: "data", lazy: true, optional: false },
              d: { type: "string?", optional: false },
              e: { type: "string", renamedFrom: "oldE" },
              f: { type: "enum", values: [1, 2, 3], default: 2 },
            } }
            """))
        let fields = try #require(m.model(named: "M")).fields
        #expect(fields == [
            FieldSchema(name: "a", type: .string),
            FieldSchema(name: "b", type: .int, isOptional: true, isUnique: true),
            FieldSchema(name: "c", type: .data, isLazy: true),
            // The type's "?" wins over optional: false (flags only add).
            FieldSchema(name: "d", type: .string, isOptional: true),
            FieldSchema(name: "e", type: .string, renamedFrom: "oldE"),
            FieldSchema(name: "f", type: .enum, defaultValue: .int(2), enumValues: [.int(1), .int(2), .int(3)]),
        ])
    }

    @Test(arguments: FieldType.allCases)
    func everyFieldTypeParses(type: FieldType) throws {
        let spec = type == .enum ? "{ type: 'enum', values: ['x'] }" : "'\(type.rawValue)'"
        let m = try parse(Self.manifest("M: { fields: { f: \(spec), g: \(type == .enum ? "{ type: 'enum?', values: [1] }" : "'\(type.rawValue)?'") } }"))
        let fields = try #require(m.model(named: "M")).fields
        #expect(fields.map(\.type) == [type, type])
        #expect(fields.map(\.isOptional) == [false, true])
    }

    @Test func columnTypes() {
        #expect(FieldType.string.columnType(enumValues: []) == "TEXT")
        #expect(FieldType.int.columnType(enumValues: []) == "INTEGER")
        #expect(FieldType.double.columnType(enumValues: []) == "REAL")
        #expect(FieldType.bool.columnType(enumValues: []) == "INTEGER")
        #expect(FieldType.date.columnType(enumValues: []) == "REAL")
        #expect(FieldType.data.columnType(enumValues: []) == "BLOB")
        #expect(FieldType.uuid.columnType(enumValues: []) == "TEXT")
        #expect(FieldType.json.columnType(enumValues: []) == "TEXT")
        #expect(FieldType.enum.columnType(enumValues: [.string("a")]) == "TEXT")
        #expect(FieldType.enum.columnType(enumValues: [.int(1)]) == "INTEGER")
        #expect(FieldType.namesList == "string, int, double, bool, date, data, uuid, enum, json")
    }

    @Test func enumValuesStringsAndIntegers() throws {
        let m = try parse(Self.manifest("""
            M: { fields: {
              s: { type: "enum", values: ["png", "jpg"] },
              i: { type: "enum", values: [10, -1, 0x20] },
              one: { type: "enum?", values: ["only"] },
            } }
            """))
        let model = try #require(m.model(named: "M"))
        #expect(model.field(named: "s")?.enumValues == [.string("png"), .string("jpg")])
        #expect(model.field(named: "i")?.enumValues == [.int(10), .int(-1), .int(32)])
        #expect(model.field(named: "i")?.columnType == "INTEGER")
        #expect(model.field(named: "one")?.isOptional == true)
    }

    @Test func defaultsOfEveryType() throws {
        let m = try parse(Self.manifest("""
            M: { fields: {
              s: { type: "string", default: "hello" },
              e: { type: "string", default: "" },
              i: { type: "int", default: -5 },
              h: { type: "int", default: 0xFF },
              d: { type: "double", default: 1.5 },
              di: { type: "double", default: 2 },
              b: { type: "bool", default: true },
              t: { type: "date", default: "2026-01-31T12:00:00.000000Z" },
              x: { type: "data", default: "AAEC/w==" },
              u: { type: "uuid", default: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F" },
              es: { type: "enum", values: ["a", "b"], default: "b" },
              ei: { type: "enum", values: [1, 2], default: 1 },
              j: { type: "json", default: { b: [1, "two"], a: null } },
              jn: { type: "json", default: 3 },
              on: { type: "string", optional: true, default: null },
              os: { type: "string?", default: "x" },
            } }
            """))
        let model = try #require(m.model(named: "M"))
        func d(_ name: String) -> JSONValue? { model.field(named: name)?.defaultValue }
        #expect(d("s") == .string("hello"))
        #expect(d("e") == .string(""))
        #expect(d("i") == .int(-5))
        #expect(d("h") == .int(255))
        #expect(d("d") == .double(1.5))
        #expect(d("di")?.numberValue == 2)
        #expect(d("b") == .bool(true))
        #expect(d("t") == .string("2026-01-31T12:00:00.000000Z"))
        #expect(d("x") == .string("AAEC/w=="))
        #expect(d("u") == .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(d("es") == .string("b"))
        #expect(d("ei") == .int(1))
        #expect(d("j").map { JSONWriter.string($0.canonicalized()) } == #"{"a":null,"b":[1,"two"]}"#)
        #expect(d("jn") == .int(3))
        #expect(d("on") == nil)  // null default on an optional field is no default
        #expect(d("os") == .string("x"))

        // The column values the defaults stand for.
        func v(_ name: String) throws -> DatabaseValue {
            let field = try #require(model.field(named: name))
            return try field.databaseValue(fromJSON: try #require(field.defaultValue))
        }
        #expect(try v("s") == .text("hello"))
        #expect(try v("d") == .real(1.5))
        #expect(try v("di") == .real(2))
        #expect(try v("b") == .integer(1))
        #expect(try v("t") == .real(1_769_860_800))
        #expect(try v("x") == .blob(Data([0, 1, 2, 255])))
        #expect(try v("u") == .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try v("ei") == .integer(1))
        #expect(try v("j") == .text(#"{"a":null,"b":[1,"two"]}"#))
    }

    @Test func databaseValueFromJSONNormalizes() throws {
        let uuid = FieldSchema(name: "u", type: .uuid)
        #expect(try uuid.databaseValue(fromJSON: .string("e621e1f8-c36c-495a-93fc-0c247a3e6e5f")) == .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let date = FieldSchema(name: "t", type: .date)
        #expect(try date.databaseValue(fromJSON: .string("2026-01-31T14:00:00+02:00")) == .real(1_769_860_800))
        let optional = FieldSchema(name: "o", type: .int, isOptional: true)
        #expect(try optional.databaseValue(fromJSON: .null) == .null)
        // And back.
        #expect(date.jsonValue(fromDatabase: .real(1_769_860_800)) == .string("2026-01-31T12:00:00.000000Z"))
        #expect(FieldSchema(name: "b", type: .bool).jsonValue(fromDatabase: .integer(1)) == .bool(true))
        #expect(FieldSchema(name: "x", type: .data).jsonValue(fromDatabase: .blob(Data([0, 1, 2, 255]))) == .string("AAEC/w=="))
        #expect(FieldSchema(name: "j", type: .json).jsonValue(fromDatabase: .text(#"{"a":[1]}"#)) == .object(JSONObject([("a", .array([.int(1)]))])))
        #expect(optional.jsonValue(fromDatabase: .null) == .null)
    }

    // MARK: Relationships

    @Test func relationshipShorthandAndObjectForms() throws {
        let m = try parse(Self.manifest("""
            User: { fields: { name: "string" }, relationships: { posts: "[Post]", best: "Post" } },
            Post: { fields: { title: "string" }, relationships: {
              author: { to: "User" },
              editors: { to: "User", many: true, deleteRule: "deny" },
              pinnedBy: { to: "User", many: false, deleteRule: "noAction", renamedFrom: "stickyBy" },
              attachments: { to: "Post", many: true, deleteRule: "cascade" },
            } },
            """))
        #expect(m.model(named: "User")?.relationships == [
            RelationshipSchema(name: "posts", target: "Post", isToMany: true),
            RelationshipSchema(name: "best", target: "Post"),
        ])
        #expect(m.model(named: "Post")?.relationships == [
            RelationshipSchema(name: "author", target: "User"),
            RelationshipSchema(name: "editors", target: "User", isToMany: true, deleteRule: .deny),
            RelationshipSchema(name: "pinnedBy", target: "User", deleteRule: .noAction, renamedFrom: "stickyBy"),
            RelationshipSchema(name: "attachments", target: "Post", isToMany: true, deleteRule: .cascade),
        ])
    }

    @Test func inverseIsFilledOnBothSides() throws {
        // Declared on the to-many side only.
        let a = try parse(Self.manifest("""
            User: { fields: {}, relationships: { posts: { to: "Post", many: true, inverse: "author" } } },
            Post: { fields: {}, relationships: { author: "User" } },
            """))
        #expect(a.model(named: "Post")?.relationship(named: "author")?.inverse == "posts")
        #expect(a.model(named: "User")?.relationship(named: "posts")?.inverse == "author")
        // Declared on the to-one side only, which comes later in the file.
        let b = try parse(Self.manifest("""
            User: { fields: {}, relationships: { posts: "[Post]" } },
            Post: { fields: {}, relationships: { author: { to: "User", inverse: "posts" } } },
            """))
        #expect(b.model(named: "User")?.relationship(named: "posts")?.inverse == "author")
        #expect(b.model(named: "Post")?.relationship(named: "author")?.inverse == "posts")
        #expect(a.canonicalText == b.canonicalText)
        // Self-referential pairs, and a relationship that is its own inverse.
        let c = try parse(Self.manifest("""
            Person: { fields: {}, relationships: {
              parent: { to: "Person", inverse: "children" }, children: "[Person]",
              spouse: { to: "Person", inverse: "spouse" },
            } },
            """))
        let person = try #require(c.model(named: "Person"))
        #expect(person.relationship(named: "children")?.inverse == "parent")
        #expect(person.relationship(named: "parent")?.inverse == "children")
        #expect(person.relationship(named: "spouse")?.inverse == "spouse")
    }

    /// The model-level `unique`: combinations of fields and to-one relationships, in the canonical text
    /// after `relationships` (keys sorted), and a UNIQUE index of its own in the DDL.
    @Test func compoundUniqueConstraintsTakeFieldsAndToOneRelationships() throws {
        let m = try ManifestParser.parse("""
            { vein: 1, app: "a.b", version: "1.0.0", models: {
                Person: { fields: { firstName: "string", lastName: "string", email: "string unique" },
                          relationships: { team: "Team" }, unique: [["firstName", "lastName"], ["team", "email"]] },
                Team: { fields: { name: "string" } } } }
            """, file: "m.json5")
        let person = try #require(m.model(named: "Person"))
        #expect(person.uniquenessConstraints == [["firstName", "lastName"], ["team", "email"]])
        #expect(person.field(named: "email")?.isUnique == true)
        #expect(m.canonicalText.contains(#""relationships":{"team":{"to":"Team"}},"unique":[["firstName","lastName"],["team","email"]]}"#))
        #expect(try ManifestParser.parse(m.canonicalText, file: "c") == m)
        #expect(SchemaDDL.createStatements(for: m).filter { $0.hasPrefix("CREATE UNIQUE INDEX") } == [
            #"CREATE UNIQUE INDEX "Person._unique.firstName.lastName" ON "Person" ("firstName", "lastName")"#,
            #"CREATE UNIQUE INDEX "Person._unique.team.email" ON "Person" ("team", "email")"#,
        ])
        // The second constraint leads with the to-one: it serves the relationship's lookups, no index of its own.
        #expect(!SchemaDDL.createStatements(for: m).contains { $0.contains(#""Person.team""#) })
    }

    @Test func indexesTakeFieldsAndToOneRelationships() throws {
        let m = try parse(Self.manifest("""
            User: { fields: { name: "string" } },
            Post: { fields: { title: "string", views: "int" }, relationships: { author: "User" },
                    indexes: [["title"], ["views", "title"], "author", ["author", "views"]] },
            """))
        #expect(m.model(named: "Post")?.indexes == [["title"], ["views", "title"], ["author"], ["author", "views"]])
    }

    @Test func schemaVersions() {
        #expect(SchemaVersion("0.0.1") == SchemaVersion(0, 0, 1))
        #expect(SchemaVersion("10.20.30")?.description == "10.20.30")
        #expect(SchemaVersion("1.2.3")! < SchemaVersion("1.10.0")!)
        #expect(SchemaVersion("2.0.0")! > SchemaVersion("1.99.99")!)
        for bad in ["", "1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.03", "a.b.c", "1.2.x", "1..3", "1.2.3-beta", " 1.2.3", "-1.2.3", "+1.2.3", "1.+2.3", "-0.1.2", "1.2.-0", "１.2.3"] {
            #expect(SchemaVersion(bad) == nil, "accepted \(bad.debugDescription)")
        }
        #expect(SchemaVersion("0.0.0") != nil)
    }

    // MARK: Canonical form

    @Test func canonicalFormIgnoresFormattingShorthandAndKeyOrder() throws {
        let lenient = """
            // JSON5, shorthand, inverse on one side
            {
              vein: 1, app: 'a.b', version: "1.0.0",
              models: {
                Post: {
                  fields: { title: "string unique", body: "string? lazy", n: { type: "int", default: 0 }, kind: { type: "enum", values: ["x", "y"] } },
                  relationships: { author: "User" },
                  indexes: ["title"],
                },
                User: {
                  fields: { name: "string" },
                  relationships: { posts: { to: "Post", many: true, inverse: "author", deleteRule: "nullify" } },
                },
              },
            }
            """
        let strict = """
            {"models": {"Post": {"indexes": [["title"]], "relationships": {"author": {"to": "User", "inverse": "posts"}},
              "fields": {"title": {"unique": true, "type": "string"}, "body": {"type": "string ?", "lazy": true},
                         "n": {"default": 0, "type": "int", "optional": false},
                         "kind": {"values": ["x", "y"], "type": "enum"}}},
             "User": {"relationships": {"posts": {"many": true, "to": "Post"}}, "fields": {"name": {"type": "string"}}}},
             "version": "1.0.0", "app": "a.b", "vein": 1}
            """
        let a = try parse(lenient), b = try parse(strict)
        #expect(a == b)
        #expect(a.canonicalText == b.canonicalText)
        #expect(a.sha256 == b.sha256)
        #expect(a.sha256.count == 64)
        #expect(a.canonicalText == #"{"app":"a.b","models":{"Post":{"fields":{"title":{"type":"string","unique":true},"body":{"lazy":true,"optional":true,"type":"string"},"n":{"default":0,"type":"int"},"kind":{"type":"enum","values":["x","y"]}},"indexes":[["title"]],"relationships":{"author":{"inverse":"posts","to":"User"}}},"User":{"fields":{"name":{"type":"string"}},"relationships":{"posts":{"inverse":"author","many":true,"to":"Post"}}}},"vein":1,"version":"1.0.0"}"#)
    }

    @Test func canonicalTextOfASmallManifestIsExact() throws {
        let m = try parse("""
            { vein: 1, app: "x.y", version: "0.1.0",
              models: { Note: { fields: { text: "string", pinned: { type: "bool", default: false },
                                          tag: { type: "enum", values: ["a", "b"], optional: true } },
                                indexes: [["pinned"]] } } }
            """)
        #expect(m.canonicalText == #"{"app":"x.y","models":{"Note":{"fields":{"text":{"type":"string"},"pinned":{"default":false,"type":"bool"},"tag":{"optional":true,"type":"enum","values":["a","b"]}},"indexes":[["pinned"]]}},"vein":1,"version":"0.1.0"}"#)
        #expect(m.sha256 == "dd6ea569ecdf852fce4212a967cc92d342f5a1b927e640868947e2c02bb7816f")
        #expect(m.sha256 == SHA256.hex(m.canonicalText))
    }

    @Test func canonicalFormKeepsModelFieldAndRelationshipOrder() throws {
        let a = try parse(Self.manifest("B: { fields: { y: 'int', x: 'int' } }, A: { fields: { z: 'int' } }"))
        let b = try parse(Self.manifest("A: { fields: { z: 'int' } }, B: { fields: { y: 'int', x: 'int' } }"))
        #expect(a.canonicalText != b.canonicalText)
        #expect(a.canonicalText.contains(#""models":{"B":{"fields":{"y":{"type":"int"},"x":{"type":"int"}}},"A":"#))
    }

    @Test func canonicalFormRoundTrips() throws {
        let blog = try Fixtures.blogManifest()
        let again = try ManifestParser.parse(blog.canonicalText, file: "canonical")
        #expect(again == blog)
        #expect(again.canonicalText == blog.canonicalText)
        #expect(blog.canonicalText == #"{"app":"com.example.blog","models":{"Post":{"fields":{"title":{"type":"string"},"content":{"type":"string"},"views":{"default":0,"type":"int"},"publishedAt":{"optional":true,"type":"date"}},"indexes":[["publishedAt"]],"relationships":{"attachments":{"deleteRule":"cascade","inverse":"post","many":true,"to":"Attachment"}}},"Attachment":{"fields":{"name":{"type":"string"},"fileType":{"type":"enum","values":["png","jpg","gif","swift"]},"sizeMiB":{"type":"double"},"data":{"lazy":true,"optional":true,"type":"data"}},"relationships":{"post":{"inverse":"attachments","to":"Post"}}}},"vein":1,"version":"0.0.1"}"#)
        // The canonical text is strict JSON.
        #expect((try? JSONParser.parse(blog.canonicalText, json5: false)) != nil)
    }

    @Test func canonicalFormKeepsRenames() throws {
        let m = try parse(Self.manifest("""
            New: { renamedFrom: "Old", fields: { a: { type: "int", renamedFrom: "b" } },
                   relationships: { r: { to: "New", renamedFrom: "s" } } }
            """))
        #expect(m.canonicalText.contains(#""New":{"fields":{"a":{"renamedFrom":"b","type":"int"}},"relationships":{"r":{"renamedFrom":"s","to":"New"}},"renamedFrom":"Old"}"#))
        #expect(try ManifestParser.parse(m.canonicalText, file: "c") == m)
    }

    @Test func equivalentDefaultsHaveOneCanonicalForm() throws {
        // Defaults that mean the same value are written the same way in the canonical text.
        func canonical(_ field: String) throws -> String {
            try parse(Self.manifest("M: { fields: { f: \(field) } }")).canonicalText
        }
        #expect(try canonical("{ type: 'double', default: 2 }") == canonical("{ type: 'double', default: 2.0 }"))
        #expect(try canonical("{ type: 'date', default: '2026-01-31T12:00:00Z' }")
                == canonical("{ type: 'date', default: '2026-01-31T14:00:00.000000+02:00' }"))
        #expect(try canonical("{ type: 'uuid', default: 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f' }")
                == canonical("{ type: 'uuid', default: 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F' }"))
        #expect(try canonical("{ type: 'json', default: { b: 1, a: 2 } }") == canonical("{ type: 'json', default: { a: 2, b: 1 } }"))
        #expect(try canonical("{ type: 'double', default: 2 }").contains(#""default":2.0"#))
        #expect(try canonical("{ type: 'date', default: '2026-01-31' }").contains(#""default":"2026-01-31T00:00:00.000000Z""#))
    }

    @Test func nonFiniteDefaultsAreRejected() {
        // JSON (and so the canonical text that a store keeps) has no Infinity or NaN.
        #expect(Self.errors(Self.manifest("M: { fields: { f: { type: 'double', default: Infinity } } }"))
                == ["m.json5: models.M.fields.f.default: expected a finite number, found Infinity"])
        #expect(Self.errors(Self.manifest("M: { fields: { f: { type: 'double?', default: NaN } } }"))
                == ["m.json5: models.M.fields.f.default: expected a finite number, found NaN"])
        #expect(Self.errors(Self.manifest("M: { fields: { f: { type: 'json', default: { a: [1, -Infinity] } } } }"))
                == ["m.json5: models.M.fields.f.default: expected a finite number, found -Infinity"])
        #expect(Self.errors(Self.manifest("M: { fields: { f: { type: 'double', default: 1e400 } } }"))
                == ["m.json5: models.M.fields.f.default: expected a finite number, found Infinity"])
        // Finite extremes are fine, and survive the canonical text.
        let m = try? ManifestParser.parse(Self.manifest("M: { fields: { f: { type: 'double', default: 1.7976931348623157e308 } } }"), file: "m")
        #expect(m.map { (try? ManifestParser.parse($0.canonicalText, file: "c")) == $0 } == true)
    }

    // MARK: Validation errors

    static let validationCases: [(String, String, [String])] = [
        // Types and modifiers
        ("unknown type", manifest("Post: { fields: { views: 'integer' } }"),
         [#"m.json5: models.Post.fields.views: unknown type "integer" (expected one of string, int, double, bool, date, data, uuid, enum, json) (did you mean "int"?)"#]),
        ("unknown type with a hint", manifest("Post: { fields: { views: 'imt' } }"),
         [#"m.json5: models.Post.fields.views: unknown type "imt" (expected one of string, int, double, bool, date, data, uuid, enum, json) (did you mean "int"?)"#]),
        ("unknown optional type with a hint", manifest("Post: { fields: { title: 'strng?' } }"),
         [#"m.json5: models.Post.fields.title: unknown type "strng" (expected one of string, int, double, bool, date, data, uuid, enum, json) (did you mean "string"?)"#]),
        ("unknown type in object form", manifest("Post: { fields: { views: { type: 'integr' } } }"),
         [#"m.json5: models.Post.fields.views.type: unknown type "integr" (expected one of string, int, double, bool, date, data, uuid, enum, json)"#]),
        ("empty type", manifest("Post: { fields: { views: '  ' } }"),
         ["m.json5: models.Post.fields.views: empty type (expected one of string, int, double, bool, date, data, uuid, enum, json)"]),
        ("type is not a string", manifest("Post: { fields: { views: { type: 5 } } }"),
         ["m.json5: models.Post.fields.views.type: expected a type string, found an integer"]),
        ("type missing", manifest("Post: { fields: { views: { optional: true } } }"),
         [#"m.json5: models.Post.fields.views: missing key "type" (a type)"#]),
        ("field neither string nor object", manifest("Post: { fields: { views: 5 } }"),
         [#"m.json5: models.Post.fields.views: expected a type string such as "string?" or an object with a "type", found an integer"#]),
        ("unknown modifier with a hint", manifest("Post: { fields: { title: 'string uniqe' } }"),
         [#"m.json5: models.Post.fields.title: unknown modifier "uniqe" (expected lazy or unique) (did you mean "unique"?)"#]),
        ("unknown modifier", manifest("Post: { fields: { title: 'string indexed' } }"),
         [#"m.json5: models.Post.fields.title: unknown modifier "indexed" (expected lazy or unique)"#]),
        ("flag not a boolean", manifest("Post: { fields: { title: { type: 'string', optional: 'yes', lazy: 1 } } }"),
         ["m.json5: models.Post.fields.title.optional: expected true or false, found a string",
          "m.json5: models.Post.fields.title.lazy: expected true or false, found an integer"]),

        // Unknown keys
        ("unknown top-level key", "{ vein: 1, app: 'a', version: '1.0.0', models: { M: { fields: {} } }, modles: {} }",
         [#"m.json5: modles: unknown key "modles" (expected one of vein, app, version, models) (did you mean "models"?)"#]),
        ("unknown model key", manifest("Post: { field: { title: 'string' } }"),
         [#"m.json5: models.Post.field: unknown key "field" (expected one of fields, relationships, indexes, unique, renamedFrom) (did you mean "fields"?)"#]),
        ("unknown field key", manifest("Post: { fields: { title: { type: 'string', optinal: true } } }"),
         [#"m.json5: models.Post.fields.title.optinal: unknown key "optinal" (expected one of type, optional, lazy, unique, preserveValueOnDeletion, default, values, renamedFrom) (did you mean "optional"?)"#]),
        ("unknown relationship key", manifest("Post: { relationships: { parent: { to: 'Post', invers: 'x' } } }"),
         [#"m.json5: models.Post.relationships.parent.invers: unknown key "invers" (expected one of to, many, inverse, deleteRule, renamedFrom) (did you mean "inverse"?)"#]),
        ("unknown key without a hint", manifest("Post: { fields: {}, comment: 'x' }"),
         [#"m.json5: models.Post.comment: unknown key "comment" (expected one of fields, relationships, indexes, unique, renamedFrom)"#]),

        // The top level
        ("missing vein", "{ app: 'a', version: '1.0.0', models: { M: {} } }",
         [#"m.json5: missing key "vein" (the manifest format, 1)"#]),
        ("missing app", "{ vein: 1, version: '1.0.0', models: { M: {} } }",
         [#"m.json5: missing key "app" (an application id such as "com.example.blog")"#]),
        ("missing version", "{ vein: 1, app: 'a', models: { M: {} } }",
         [#"m.json5: missing key "version" (a semantic version such as "0.0.1")"#]),
        ("missing models", "{ vein: 1, app: 'a', version: '1.0.0' }",
         [#"m.json5: missing key "models" (an object of models)"#]),
        ("everything missing", "{}",
         [#"m.json5: missing key "vein" (the manifest format, 1)"#,
          #"m.json5: missing key "app" (an application id such as "com.example.blog")"#,
          #"m.json5: missing key "version" (a semantic version such as "0.0.1")"#,
          #"m.json5: missing key "models" (an object of models)"#]),
        ("not an object", "[1, 2]",
         ["m.json5: expected a manifest object ({ vein: 1, app: …, version: …, models: … }), found an array"]),
        ("unsupported format", manifest("M: {}", header: "vein: 2, app: 'a', version: '1.0.0',"),
         ["m.json5: vein: unsupported manifest format 2 (this vein reads format 1)"]),
        ("format not an integer", manifest("M: {}", header: "vein: '1', app: 'a', version: '1.0.0',"),
         ["m.json5: vein: expected the integer 1, found a string"]),
        ("format a double", manifest("M: {}", header: "vein: 1.0, app: 'a', version: '1.0.0',"),
         ["m.json5: vein: expected the integer 1, found a number"]),
        ("bad version", manifest("M: {}", header: "vein: 1, app: 'a', version: '1.0',"),
         [#"m.json5: version: "1.0" is not a semantic version (expected MAJOR.MINOR.PATCH, such as "0.0.1")"#]),
        ("version with a leading zero", manifest("M: {}", header: "vein: 1, app: 'a', version: '1.01.0',"),
         [#"m.json5: version: "1.01.0" is not a semantic version (expected MAJOR.MINOR.PATCH, such as "0.0.1")"#]),
        ("version with a sign", manifest("M: {}", header: "vein: 1, app: 'a', version: '+1.0.0',"),
         [#"m.json5: version: "+1.0.0" is not a semantic version (expected MAJOR.MINOR.PATCH, such as "0.0.1")"#]),
        ("version not a string", manifest("M: {}", header: "vein: 1, app: 'a', version: 1,"),
         [#"m.json5: version: expected a version string such as "0.0.1", found an integer"#]),
        ("bad app id", manifest("M: {}", header: "vein: 1, app: 'com example/blog', version: '1.0.0',"),
         [#"m.json5: app: "com example/blog" is not an application id (letters, digits, '.', '_' and '-', such as "com.example.blog")"#]),
        ("empty app id", manifest("M: {}", header: "vein: 1, app: '', version: '1.0.0',"),
         [#"m.json5: app: "" is not an application id (letters, digits, '.', '_' and '-', such as "com.example.blog")"#]),
        ("app not a string", manifest("M: {}", header: "vein: 1, app: ['a'], version: '1.0.0',"),
         ["m.json5: app: expected a string, found an array"]),
        ("empty models", "{ vein: 1, app: 'a', version: '1.0.0', models: {} }",
         ["m.json5: models: expected at least one model"]),
        ("models not an object", "{ vein: 1, app: 'a', version: '1.0.0', models: [] }",
         ["m.json5: models: expected an object of models, found an array"]),
        ("model not an object", manifest("Post: 'string'"),
         ["m.json5: models.Post: expected a model object ({ fields: …, relationships: … }), found a string"]),
        ("fields not an object", manifest("Post: { fields: ['title'] }"),
         ["m.json5: models.Post.fields: expected an object of fields, found an array"]),
        ("relationships not an object", manifest("Post: { relationships: 'none' }"),
         ["m.json5: models.Post.relationships: expected an object of relationships, found a string"]),

        // Names
        ("field named _id", manifest("Post: { fields: { _id: 'string' } }"),
         [#"m.json5: models.Post.fields._id: field name "_id" is reserved: names starting with '_' belong to Vein"#]),
        ("field named self", manifest("Post: { fields: { self: 'string' } }"), [#"m.json5: models.Post.fields.self: field name "self" is reserved"#]),
        ("relationship named self", manifest("Post: { relationships: { self: 'Post' } }"),
         [#"m.json5: models.Post.relationships.self: relationship name "self" is reserved"#]),
        ("expression words", manifest("Post: { fields: { true: 'bool', nil: 'int', False: 'int' } }"),
         [#"m.json5: models.Post.fields.true: field name "true" is reserved"#,
          #"m.json5: models.Post.fields.nil: field name "nil" is reserved"#,
          #"m.json5: models.Post.fields.False: field name "False" is reserved"#]),
        ("leading underscore model", manifest("_vein_meta: {}"),
         [#"m.json5: models._vein_meta: model name "_vein_meta" is reserved: names starting with '_' belong to Vein"#]),
        ("leading underscore field", manifest("Post: { fields: { _secret: 'string' } }"),
         [#"m.json5: models.Post.fields._secret: field name "_secret" is reserved: names starting with '_' belong to Vein"#]),
        ("sqlite_ model", manifest("sqlite_stat1: {}"),
         [#"m.json5: models.sqlite_stat1: model name "sqlite_stat1" is reserved by SQLite"#]),
        ("SQLITE_ field", manifest("Post: { fields: { SQLITE_x: 'int' } }"),
         [#"m.json5: models.Post.fields.SQLITE_x: field name "SQLITE_x" is reserved by SQLite"#]),
        ("names that are not identifiers", manifest("""
            'Bad Model': {}, '2fast': {}, 'A.B': {}, 'Café': {}, Ok: { fields: { 'my-field': 'int', '': 'int', 'x y': 'int' } }
            """),
         [#"m.json5: models.Bad Model: model name "Bad Model" is not an identifier (letters, digits and '_', starting with a letter)"#,
          #"m.json5: models.2fast: model name "2fast" is not an identifier (letters, digits and '_', starting with a letter)"#,
          #"m.json5: models.A.B: model name "A.B" is not an identifier (letters, digits and '_', starting with a letter)"#,
          #"m.json5: models.Café: model name "Café" is not an identifier (letters, digits and '_', starting with a letter)"#,
          #"m.json5: models.Ok.fields.my-field: field name "my-field" is not an identifier (letters, digits and '_', starting with a letter)"#,
          "m.json5: models.Ok.fields.: field name is empty",
          #"m.json5: models.Ok.fields.x y: field name "x y" is not an identifier (letters, digits and '_', starting with a letter)"#]),
        ("models differing in case", manifest("Post: {}, post: {}, POST: {}"),
         [#"m.json5: models.post: model "post" collides with "Post" (SQLite table names ignore case)"#,
          #"m.json5: models.POST: model "POST" collides with "Post" (SQLite table names ignore case)"#]),
        ("fields differing in case", manifest("Post: { fields: { title: 'string', Title: 'string' } }"),
         [#"m.json5: models.Post.fields.Title: "Title" collides with "title" in Post (column names ignore case)"#]),
        ("field and relationship with one name", manifest("User: {}, Post: { fields: { author: 'string' }, relationships: { Author: 'User' } }"),
         [#"m.json5: models.Post.relationships.Author: "Author" collides with "author" in Post (column names ignore case)"#]),

        // Enums
        ("enum shorthand has no values", manifest("Post: { fields: { kind: 'enum' } }"),
         [#"m.json5: models.Post.fields.kind: an enum field needs its values: { type: "enum", values: ["a", "b"] }"#]),
        ("enum object without values", manifest("Post: { fields: { kind: { type: 'enum' } } }"),
         [#"m.json5: models.Post.fields.kind: an enum field needs "values": an array of strings or of integers"#]),
        ("enum with empty values", manifest("Post: { fields: { kind: { type: 'enum', values: [] } } }"),
         ["m.json5: models.Post.fields.kind.values: expected a non-empty array of strings or of integers, found an array"]),
        ("enum values not an array", manifest("Post: { fields: { kind: { type: 'enum', values: 'a' } } }"),
         ["m.json5: models.Post.fields.kind.values: expected a non-empty array of strings or of integers, found a string"]),
        ("duplicate enum string", manifest("Post: { fields: { kind: { type: 'enum', values: ['a', 'b', 'a'] } } }"),
         [#"m.json5: models.Post.fields.kind.values[2]: duplicate enum value "a""#]),
        ("duplicate enum integer", manifest("Post: { fields: { kind: { type: 'enum', values: [1, 0x1] } } }"),
         ["m.json5: models.Post.fields.kind.values[1]: duplicate enum value 1"]),
        ("mixed enum values", manifest("Post: { fields: { kind: { type: 'enum', values: ['a', 1] } } }"),
         ["m.json5: models.Post.fields.kind.values: expected values that are all strings or all integers"]),
        ("enum values that are doubles", manifest("Post: { fields: { kind: { type: 'enum', values: [1.5, 2.5] } } }"),
         ["m.json5: models.Post.fields.kind.values: expected values that are all strings or all integers"]),
        ("values on a non-enum", manifest("Post: { fields: { title: { type: 'string', values: ['a'] } } }"),
         ["m.json5: models.Post.fields.title.values: only enum fields take values (this field is string)"]),

        // Defaults
        ("string default", manifest("M: { fields: { f: { type: 'string', default: 1 } } }"),
         ["m.json5: models.M.fields.f.default: expected a string, found an integer"]),
        ("int default string", manifest("M: { fields: { f: { type: 'int', default: '1' } } }"),
         ["m.json5: models.M.fields.f.default: expected an integer, found a string"]),
        ("int default fraction", manifest("M: { fields: { f: { type: 'int', default: 1.5 } } }"),
         ["m.json5: models.M.fields.f.default: expected an integer, found a number"]),
        ("double default", manifest("M: { fields: { f: { type: 'double', default: '1.5' } } }"),
         ["m.json5: models.M.fields.f.default: expected a number, found a string"]),
        ("bool default", manifest("M: { fields: { f: { type: 'bool', default: 1 } } }"),
         ["m.json5: models.M.fields.f.default: expected true or false, found an integer"]),
        ("date default kind", manifest("M: { fields: { f: { type: 'date', default: 0 } } }"),
         ["m.json5: models.M.fields.f.default: expected an ISO 8601 date string, found an integer"]),
        ("date default text", manifest("M: { fields: { f: { type: 'date', default: '2026-02-30' } } }"),
         [#"m.json5: models.M.fields.f.default: expected an ISO 8601 date such as "2026-01-31T12:00:00.000000Z", found "2026-02-30""#]),
        ("data default kind", manifest("M: { fields: { f: { type: 'data', default: [1, 2] } } }"),
         ["m.json5: models.M.fields.f.default: expected a base64 string, found an array"]),
        ("data default text", manifest("M: { fields: { f: { type: 'data', default: 'not base64!' } } }"),
         [#"m.json5: models.M.fields.f.default: expected base64 data, found "not base64!""#]),
        ("uuid default kind", manifest("M: { fields: { f: { type: 'uuid', default: true } } }"),
         ["m.json5: models.M.fields.f.default: expected a UUID string, found a boolean"]),
        ("uuid default text", manifest("M: { fields: { f: { type: 'uuid', default: 'nope' } } }"),
         [#"m.json5: models.M.fields.f.default: expected a UUID, found "nope""#]),
        ("enum default", manifest("M: { fields: { f: { type: 'enum', values: ['a', 'b'], default: 'c' } } }"),
         [#"m.json5: models.M.fields.f.default: expected one of "a", "b", found "c""#]),
        ("integer enum default", manifest("M: { fields: { f: { type: 'enum', values: [1, 2], default: '1' } } }"),
         [#"m.json5: models.M.fields.f.default: expected one of 1, 2, found "1""#]),
        ("null default on a required field", manifest("M: { fields: { f: { type: 'string', default: null } } }"),
         ["m.json5: models.M.fields.f.default: expected a value (the field is not optional), found null"]),

        // Relationships
        ("relationship not a string or object", manifest("Post: { relationships: { r: 5 } }"),
         ["m.json5: models.Post.relationships.r: expected a relationship object ({ to: \"Model\", many: true, inverse: … }), found an integer"]),
        ("relationship without to", manifest("Post: { relationships: { r: { many: true } } }"),
         [#"m.json5: models.Post.relationships.r: missing key "to" (the target model's name)"#]),
        ("relationship to not a string", manifest("Post: { relationships: { r: { to: ['Post'] } } }"),
         ["m.json5: models.Post.relationships.r.to: expected a model name, found an array"]),
        ("bad delete rule", manifest("Post: { relationships: { r: { to: 'Post', deleteRule: 'cascde' } } }"),
         [#"m.json5: models.Post.relationships.r.deleteRule: unknown delete rule "cascde" (expected one of nullify, cascade, deny, noAction) (did you mean "cascade"?)"#]),
        ("delete rule not a string", manifest("Post: { relationships: { r: { to: 'Post', deleteRule: true } } }"),
         ["m.json5: models.Post.relationships.r.deleteRule: expected one of nullify, cascade, deny, noAction, found a boolean"]),
        ("empty inverse name", manifest("Post: { relationships: { r: { to: 'Post', inverse: '' } } }"),
         ["m.json5: models.Post.relationships.r.inverse: expected a name, found a string"]),
        ("renamedFrom not a string", manifest("Post: { renamedFrom: 3 }"),
         ["m.json5: models.Post.renamedFrom: expected a name, found an integer"]),
        ("missing target", manifest("User: {}, Post: { relationships: { author: 'Usr' } }"),
         [#"m.json5: models.Post.relationships.author.to: relationship target "Usr" is not a model of this schema (did you mean "User"?)"#]),
        ("missing to-many target", manifest("User: {}, Post: { relationships: { readers: '[Reader]' } }"),
         [#"m.json5: models.Post.relationships.readers.to: relationship target "Reader" is not a model of this schema"#]),
        ("half-bracketed shorthand", manifest("Post: { relationships: { related: '[Post' } }"),
         [#"m.json5: models.Post.relationships.related.to: relationship target "[Post" is not a model of this schema (did you mean "Post"?)"#]),
        ("missing inverse", manifest("""
            User: { relationships: { posts: '[Post]' } },
            Post: { relationships: { author: { to: 'User', inverse: 'postz' } } }
            """),
         [#"m.json5: models.Post.relationships.author.inverse: inverse "postz" is not a relationship of User (did you mean "posts"?)"#]),
        ("inverse pointing elsewhere", manifest("""
            User: { relationships: { comments: '[Comment]' } }, Comment: {},
            Post: { relationships: { author: { to: 'User', inverse: 'comments' } } }
            """),
         ["m.json5: models.Post.relationships.author.inverse: inverse \"comments\" of User points to Comment, not back to Post"]),
        ("inverse naming another", manifest("""
            User: { relationships: { posts: { to: 'Post', many: true, inverse: 'editor' } } },
            Post: { relationships: { author: { to: 'User', inverse: 'posts' }, editor: 'User' } }
            """),
         [#"m.json5: models.Post.relationships.author.inverse: inverse "posts" of User names "editor" as its inverse, not "author""#]),

        // Indexes
        ("indexes not an array", manifest("Post: { fields: { title: 'string' }, indexes: 'title' }"),
         [#"m.json5: models.Post.indexes: expected an array of indexes such as [["publishedAt"], ["title", "views"]], found a string"#]),
        ("index not an array", manifest("Post: { fields: { title: 'string' }, indexes: [5] }"),
         ["m.json5: models.Post.indexes[0]: expected an array of field names, found an integer"]),
        ("empty index", manifest("Post: { fields: { title: 'string' }, indexes: [[]] }"),
         ["m.json5: models.Post.indexes[0]: expected a non-empty array of field names"]),
        ("index of non-strings", manifest("Post: { fields: { title: 'string' }, indexes: [['title', 1]] }"),
         ["m.json5: models.Post.indexes[0]: expected a non-empty array of field names"]),
        ("index on an unknown field", manifest("Post: { fields: { title: 'string' }, indexes: [['titl']] }"),
         [#"m.json5: models.Post.indexes[0]: "titl" is not a field of Post (did you mean "title"?)"#]),
        ("index on an unknown field, letters swapped", manifest("Post: { fields: { title: 'string' }, indexes: [['titel']] }"),
         [#"m.json5: models.Post.indexes[0]: "titel" is not a field of Post (did you mean "title"?)"#]),
        ("index on id", manifest("Post: { fields: { title: 'string' }, indexes: [['id']] }"),
         [#"m.json5: models.Post.indexes[0]: "id" is not a field of Post"#]),
        ("index on a to-many", manifest("Post: { fields: { title: 'string' }, relationships: { related: '[Post]' }, indexes: [['title', 'related']] }"),
         [#"m.json5: models.Post.indexes[0]: "related" is a to-many relationship, which cannot be indexed"#]),
        ("duplicate index", manifest("Post: { fields: { title: 'string', views: 'int' }, indexes: [['title', 'views'], ['views'], ['title', 'views']] }"),
         ["m.json5: models.Post.indexes[2]: duplicate index on title, views"]),
        ("duplicate index via shorthand", manifest("Post: { fields: { title: 'string' }, indexes: ['title', ['title']] }"),
         ["m.json5: models.Post.indexes[1]: duplicate index on title"]),
        ("column twice in an index", manifest("Post: { fields: { title: 'string' }, indexes: [['title', 'title']] }"),
         [#"m.json5: models.Post.indexes[0]: "title" appears twice in one index"#]),

        // Compound unique constraints
        ("unique not an array", manifest("Person: { fields: { a: 'string' }, unique: 'a' }"),
         [#"m.json5: models.Person.unique: expected an array of unique constraints such as [["firstName", "lastName"]], found a string"#]),
        ("unique written flat", manifest("Person: { fields: { a: 'string', b: 'string' }, unique: ['a', 'b'] }"),
         [#"m.json5: models.Person.unique[0]: expected an array of field names such as ["firstName", "lastName"], found a string"#,
          #"m.json5: models.Person.unique[1]: expected an array of field names such as ["firstName", "lastName"], found a string"#]),
        ("unique of one field", manifest("Person: { fields: { email: 'string' }, unique: [['email']] }"),
         [#"m.json5: models.Person.unique[0]: ["email"] names one field: make "email" itself unique (unique: true, or "unique" after its type) and remove this list; a unique list names two or more fields"#]),
        ("unique on an unknown field", manifest("Person: { fields: { firstName: 'string', lastName: 'string' }, unique: [['firstName', 'lastNme']] }"),
         [#"m.json5: models.Person.unique[0]: "lastNme" is not a field of Person (did you mean "lastName"?)"#]),
        ("unique on a to-many", manifest("Person: { fields: { name: 'string' }, relationships: { friends: '[Person]' }, unique: [['name', 'friends']] }"),
         [#"m.json5: models.Person.unique[0]: "friends" is a to-many relationship, which has no column a unique constraint can cover; use fields or to-one relationships"#]),
        ("field twice in a unique", manifest("Person: { fields: { a: 'string', b: 'string' }, unique: [['a', 'b', 'a']] }"),
         [#"m.json5: models.Person.unique[0]: "a" appears twice in one unique constraint"#]),
        ("duplicate unique", manifest("Person: { fields: { a: 'string', b: 'string' }, unique: [['a', 'b'], ['b', 'a']] }"),
         ["m.json5: models.Person.unique[1]: duplicate unique constraint on b, a"]),

        // Syntax
        ("syntax error", "{ vein: 1,\n  app: }",
         ["m.json5:2:8: unexpected '}', expected a value"]),
        ("syntax error in a string", "{ vein: 1, app: 'a\nb' }",
         [#"m.json5:1:19: control character in a string (escape it as \u000a)"#]),
        ("duplicate key", "{ vein: 1, app: 'a', version: '1.0.0',\n  models: { M: { fields: { a: 'int',\n    a: 'string' } } } }",
         [#"m.json5:3:5: duplicate key "a""#]),
        ("empty file", "", ["m.json5:1:1: unexpected end of input, expected a value"]),
    ]

    @Test(arguments: validationCases)
    func validationError(name: String, text: String, expected: [String]) {
        #expect(Self.errors(text) == expected, "\(name)")
    }

    @Test func severalErrorsAreAllReportedAtOnce() throws {
        let text = """
            { vein: 2, app: 'ok', version: '1.0',
              models: {
                Post: { fields: { views: 'integer', title: 'string uniq', _hidden: 'int', kind: { type: 'enum', values: ['a', 'a'] } },
                        relatinships: {} },
                post: {},
              } }
            """
        let error = try #require(throws: ManifestError.self) { try ManifestParser.parse(text, file: "blog.json5") }
        #expect(error.file == "blog.json5")
        #expect(error.lines == [
            "blog.json5: vein: unsupported manifest format 2 (this vein reads format 1)",
            #"blog.json5: version: "1.0" is not a semantic version (expected MAJOR.MINOR.PATCH, such as "0.0.1")"#,
            #"blog.json5: models.Post.relatinships: unknown key "relatinships" (expected one of fields, relationships, indexes, unique, renamedFrom) (did you mean "relationships"?)"#,
            #"blog.json5: models.Post.fields.views: unknown type "integer" (expected one of string, int, double, bool, date, data, uuid, enum, json) (did you mean "int"?)"#,
            #"blog.json5: models.Post.fields.title: unknown modifier "uniq" (expected lazy or unique)"#,
            #"blog.json5: models.Post.fields._hidden: field name "_hidden" is reserved: names starting with '_' belong to Vein"#,
            #"blog.json5: models.Post.fields.kind.values[1]: duplicate enum value "a""#,
            #"blog.json5: models.post: model "post" collides with "Post" (SQLite table names ignore case)"#,
        ])
        #expect(error.issues.count == 8)
        #expect(error.description == error.lines.joined(separator: "\n"))
        #expect(error.issues[0].path == "vein")
        #expect(error.issues[0].line == nil)
    }

    @Test func severalCrossReferenceErrorsAreAllReportedAtOnce() {
        let text = Self.manifest("""
            User: { relationships: { posts: { to: 'Post', many: true, inverse: 'auther' }, friend: 'Usr' }, indexes: [['posts'], ['nmae']] },
            Post: { fields: { title: 'string' }, relationships: { author: 'User' }, indexes: [['title'], ['title']] },
            """)
        #expect(Self.errors(text) == [
            #"m.json5: models.User.relationships.posts.inverse: inverse "auther" is not a relationship of Post (did you mean "author"?)"#,
            #"m.json5: models.User.relationships.friend.to: relationship target "Usr" is not a model of this schema (did you mean "User"?)"#,
            #"m.json5: models.User.indexes[0]: "posts" is a to-many relationship, which cannot be indexed"#,
            #"m.json5: models.User.indexes[1]: "nmae" is not a field of User"#,
            "m.json5: models.Post.indexes[1]: duplicate index on title",
        ])
    }

    @Test func structuralAndCrossReferenceErrorsAreReportedTogether() {
        let text = Self.manifest("""
            Post: { fields: { title: 'strin', views: 'int' }, relationships: { author: 'Usr' }, indexes: [['veiws'], ['title']] },
            User: { fields: { nil: 'string' } },
            """)
        #expect(Self.errors(text) == [
            #"m.json5: models.Post.fields.title: unknown type "strin" (expected one of string, int, double, bool, date, data, uuid, enum, json) (did you mean "string"?)"#,
            #"m.json5: models.User.fields.nil: field name "nil" is reserved"#,
            #"m.json5: models.Post.relationships.author.to: relationship target "Usr" is not a model of this schema (did you mean "User"?)"#,
            #"m.json5: models.Post.indexes[0]: "veiws" is not a field of Post (did you mean "views"?)"#,
        ])
        // A reference to something whose own definition failed is not reported a second time.
        #expect(Self.errors(Self.manifest("Post: { fields: { title: 'strin' }, indexes: [['title']] }")).count == 1)
        #expect(Self.errors(Self.manifest("""
            Post: { relationships: { author: { to: 'User', inverse: 'posts' } } }, User: { relationships: { posts: 5 } }
            """)).count == 1)
    }

    @Test func syntaxErrorIssueCarriesLineAndColumn() throws {
        let error = try #require(throws: ManifestError.self) { try ManifestParser.parse("[\n\n   @", file: "x.json5") }
        #expect(error.issues == [ManifestIssue(path: "", message: "unexpected '@', expected a value", line: 3, column: 4)])
        #expect(error.lines == ["x.json5:3:4: unexpected '@', expected a value"])
    }

    @Test func pathPrefixIsPrependedForInlineManifests() throws {
        let json = try JSONParser.parse("{ vein: 1, app: 'a', version: '1.0.0', models: { M: { fields: { f: 'nope' } } } }", json5: true)
        let error = try #require(throws: ManifestError.self) {
            try ManifestParser.parse(json: json, file: "plan.json5", pathPrefix: "stages[0].to")
        }
        #expect(error.lines.first?.hasPrefix(#"plan.json5: stages[0].to.models.M.fields.f: unknown type "nope""#) == true)
    }

    @Test func suggestions() {
        #expect(Suggestion.closest(to: "strng", in: ["string", "int"]) == "string")
        #expect(Suggestion.closest(to: "INT", in: ["string", "int"]) == "int")
        #expect(Suggestion.closest(to: "xyz", in: ["string", "int"]) == nil)
        #expect(Suggestion.hint(for: "modles", in: ["models"]) == #" (did you mean "models"?)"#)
        #expect(Suggestion.hint(for: "zzz", in: ["models"]) == "")
        #expect(Suggestion.distance("kitten", "sitting") == 3)
        #expect(Suggestion.distance("", "abc") == 3)
    }
}

/// What `SchemaManifest.swiftDeclarations()` refuses (the round trip of what it writes is
/// VeinCoreTests' SwiftDeclarationsRoundTripTests, the exact text VeinCLITests' SchemaSwiftCommandTests).
@Suite struct SwiftDeclarationRefusalTests {
    static func refusal(_ models: String) throws -> String? {
        let manifest = try ManifestParser.parse("{ vein: 1, app: \"a\", version: \"1.0.0\", models: { \(models) } }", file: "m")
        do { _ = try manifest.swiftDeclarations() } catch { return error.description }
        return nil
    }

    @Test func whatSwiftCannotDeclareIsRefusedNamingThePlace() throws {
        #expect(try Self.refusal("String: { fields: { a: \"int\" } }")
                == "models.String: a model named String cannot be declared in Swift (it would hide the Swift name String)")
        #expect(try Self.refusal("V1_0_0: { fields: { a: \"int\" } }")
                == "models.V1_0_0: a model named V1_0_0 cannot be declared in Swift (it would hide the schema's enum)")
        #expect(try Self.refusal("Post: { fields: { tags: { type: \"json\", default: [] } } }")
                == "models.Post.fields.tags.default: a json default cannot be declared in Swift yet (@Model writes string, int, "
                    + "double, bool, uuid and enum defaults to the manifest)")
        #expect(try Self.refusal("P: { fields: {}, relationships: { friends: { to: \"P\", many: true, inverse: \"friends\" } } }")
                == "models.P.relationships.friends: a relationship that is its own inverse cannot be declared in Swift yet "
                    + "(@Relationship(inverse:) naming its own property is a circular reference to the compiler)")
        #expect(try Self.refusal("Post: { fields: { Post: \"int\" } }")
                == "models.Post.fields.Post: a member named Post cannot be declared in Swift (inside the class it would hide the class's own name)")
        #expect(try Self.refusal("Post: { fields: {}, relationships: { VeinCore: \"Post\" } }")
                == "models.Post.relationships.VeinCore: a member named VeinCore cannot be declared in Swift (inside the class it would hide the module VeinCore)")
        #expect(try Self.refusal("Data: { fields: { class: \"int\" } }") == nil, "a module prefix and backticks make these valid")
    }

    /// `var Type: Int` is not Swift, and `\Post.`Type`` is the metatype even in backticks: refused, not written.
    @Test func membersSwiftReadsAsAMetatypeAreRefused() throws {
        #expect(try Self.refusal("Post: { fields: { Type: \"int\" } }")
                == "models.Post.fields.Type: a member named Type cannot be declared in Swift "
                    + "(Swift reads Post.Type as the metatype, even in backticks, so its key path cannot be written)")
        #expect(try Self.refusal("Post: { fields: {}, relationships: { Protocol: \"Post\" } }")
                == "models.Post.relationships.Protocol: a member named Protocol cannot be declared in Swift "
                    + "(Swift reads Post.Protocol as the metatype, even in backticks, so its key path cannot be written)")
        #expect(try Self.refusal("Post: { fields: { type: \"int\", protocol: \"int\" } }") == nil)
    }

    /// `#Index` is written without a module (a freestanding macro cannot take one), even beside a model named
    /// Index; an enum default is written with its type (`State.none`, never Optional's `.none`).
    @Test func indexesAndEnumDefaultsAreWrittenAsSwiftReadsThem() throws {
        let manifest = try ManifestParser.parse("""
            { vein: 1, app: "a", version: "1.0.0", models: {
                Index: { fields: { name: "string", state: { type: "enum", values: ["none", "some"], default: "none", optional: true } },
                         indexes: [["name"]] } } }
            """, file: "m")
        let swift = try manifest.swiftDeclarations()
        #expect(swift.contains("\n        #Index<Index>([\\.name])\n"), "\(swift)")
        #expect(!swift.contains("VeinCore.Index"), "\(swift)")
        #expect(swift.contains("\n        var state: State? = State.none\n"), "\(swift)")
        #expect(swift.contains("init(name: String, state: State? = State.none)"), "\(swift)")
    }
}
