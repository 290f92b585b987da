import Foundation
import Testing
@testable import Vein

/// How the recorder keeps the log whole (docs/history.md): writes another program makes are noticed,
/// wide tables, large transactions, refused commits, migrations and a damaged record.
@Suite struct ChangeRecorderTests {
    static let v1 = schema("1.0.0", """
        Post: { fields: { title: "string", cover: "data?" }, relationships: { notes: { to: "Note", many: true, inverse: "post" } } },
        Note: { fields: { text: "string" }, relationships: { post: { to: "Post", inverse: "notes" } } }
        """)

    final class Fixture {
        let dir: TempDir
        let path: String

        init(_ schemaText: String = ChangeRecorderTests.v1) throws {
            dir = try TempDir()
            path = dir.path("h.vein")
            _ = try StoreCreator.create(at: path, manifest: try ManifestParser.parse(schemaText, file: "m"), protection: .plaintext,
                                        keepsChangeLog: true)
        }

        deinit { dir.cleanUp() }

        func open() throws -> Store { try Store.open(path, keys: KeyOptions(keyring: nil)) }
        func log(_ store: Store? = nil) throws -> [LoggedTransaction] {
            try ChangeLogReader().transactions(in: (store ?? open()).database)
        }
    }

    @Test func writesAnotherProgramMadeAreRecordedAsOutside() throws {
        let f = try Fixture()
        let store = try f.open()
        let context = ObjectContext(store: store)
        let post = try context.insert("Post", ["title": .string("a")])
        try context.save()
        // A connection without Vein's recorder, as the sqlcipher shell would be.
        let shell = try Database(path: f.path, key: nil)
        try shell.execute(#"UPDATE "Post" SET "title" = 'changed behind Vein'"#)
        try shell.execute(#"INSERT INTO "Note" ("_id", "text") VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'n')"#)
        try shell.close()
        try context.object("Post", id: post.id)!.set("title", .string("b"))
        #expect(throws: (any Error).self) { try context.save() }  // the row changed since it was read
        context.rollback()
        let later = ObjectContext(store: store)
        _ = try later.insert("Note", ["text": .string("after")])
        try later.save()
        let kinds = try f.log().map { "\($0.kind.rawValue)\($0.detail.map { " \($0)" } ?? "")" }
        #expect(kinds == ["changes", "outside 2", "changes"])
        #expect(try StoreVerifier.verify(store).isClean)
    }

    /// More columns than one call of the recording function takes: inserts continue, updates name the
    /// columns of every group, and the replay puts them together again. Written by SQL on the store's
    /// connection (as delete rules and links are, through the triggers) and by a save (recorded directly).
    @Test func aTableWiderThanOneCallIsRecordedWhole() throws {
        let fields = (0..<120).map { "f\($0): \"int?\"" }.joined(separator: ", ")
        let text = schema("1.0.0", "Wide: { fields: { \(fields) } }")
        let f = try Fixture(text)
        let store = try f.open()
        let columns = (0..<120).map { "\"f\($0)\"" }.joined(separator: ", ")
        try store.database.transaction {
            try store.database.execute("INSERT INTO \"Wide\" (\"_id\", \(columns)) VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV', "
                                       + (0..<120).map(String.init).joined(separator: ", ") + ")")
        }
        try store.database.transaction {
            try store.database.execute(#"UPDATE "Wide" SET "f3" = -3, "f117" = NULL"#)
        }
        let context = ObjectContext(store: store)
        var values: [String: Value] = [:]
        for n in 0..<120 { values["f\(n)"] = .int(Int64(n * 2)) }
        let row = try context.insert("Wide", values)
        try context.save()
        try row.set("f3", .int(-3))
        try row.set("f117", .null)
        try context.save()
        let log = try f.log()
        #expect(log.count == 4)
        // Written as three entries (one per call of the recording function), read as one insert.
        #expect(try store.database.scalar(#"SELECT "count" FROM "_vein_changes" WHERE "token" = 1"#) == .integer(3))
        #expect(log[0].parts[0].changes.map(\.kind) == [.insert])
        #expect(log[0].parts[0].changes[0].values.map(\.column) == Array(0..<120))
        #expect(log[1].parts[0].changes.map { $0.values.map(\.column) } == [[3], [117]])
        #expect(log[2].parts[0].changes.map(\.kind) == [.insert])
        #expect(log[3].parts[0].changes.map { $0.values.map(\.column) } == [[3, 117]])

        let mirrorPath = f.dir.path("mirror.vein")
        _ = try StoreCreator.create(at: mirrorPath, manifest: try ManifestParser.parse(text, file: "m"), protection: .plaintext)
        let mirror = try Store.open(mirrorPath, keys: KeyOptions(keyring: nil))
        try mirror.database.transaction { for t in log { try ChangeReplayer(database: mirror.database).apply(t) } }
        let sql = #"SELECT * FROM "Wide" ORDER BY "_id""#
        #expect(try mirror.database.rows(sql) == f.open().database.rows(sql))
    }

    /// A write outside any transaction on a recording connection would commit without its record: SQLite's
    /// commit hook refuses it, and nothing of it stays recorded.
    @Test func aWriteThatWouldCommitUnrecordedIsRefused() throws {
        let f = try Fixture()
        let store = try f.open()
        let context = ObjectContext(store: store)
        _ = try context.insert("Post", ["title": .string("a")])
        try context.save()
        #expect(throws: DatabaseError.self) { try store.database.execute(#"UPDATE "Post" SET "title" = 'x'"#) }
        #expect(try store.database.scalar(#"SELECT "title" FROM "Post""#) == .text("a"))
        _ = try context.insert("Post", ["title": .string("b")])
        try context.save()
        let log = try f.log()
        #expect(log.map(\.kind) == [.changes, .changes])
        #expect(log[1].parts.map { $0.changes.map(\.kind) } == [[.insert]])
    }

    /// A transaction larger than the recorder keeps in memory writes its parts as it goes, and the parts
    /// replay to the same rows.
    @Test func aLargeTransactionWritesItsPartsAsItGoes() throws {
        let f = try Fixture()
        let store = try f.open()
        let context = ObjectContext(store: store)
        let cover = Data(repeating: 7, count: 1 << 20)
        for n in 0..<12 { _ = try context.insert("Post", ["title": .string("p\(n)"), "cover": .data(cover)]) }
        try context.save()
        let log = try f.log()
        #expect(log.count == 1)
        #expect(log[0].parts.count >= 2, "parts written before the commit")
        #expect(log[0].parts.reduce(0) { $0 + $1.changes.count } == 12)
    }

    /// A migration is one schema record per stage, its rebuilt tables count writes again, and the
    /// connection that ran it records the new schema's columns.
    @Test func aMigrationIsOneSchemaRecordAndRecordingGoesOn() throws {
        let f = try Fixture()
        let store = try f.open()
        let context = ObjectContext(store: store)
        _ = try context.insert("Post", ["title": .string("a")])
        try context.save()
        let v2 = schema("1.1.0", """
            Post: { fields: { title: "string", cover: "data?", pinned: { type: "bool", default: false } },
                    relationships: { notes: { to: "Note", many: true, inverse: "post" } } },
            Note: { fields: { text: "string" }, relationships: { post: { to: "Post", inverse: "notes" } } }
            """)
        _ = try Migrator(plan: try MigrationFixture.plan([Self.v1, v2], [""])).run(on: store)
        let migrated = try f.open()
        let after = ObjectContext(store: migrated)
        _ = try after.insert("Post", ["title": .string("b"), "pinned": .bool(true)])
        try after.save()
        let log = try f.log()
        #expect(log.map(\.kind) == [.changes, .schema, .changes])
        #expect(log[1].detail?.hasPrefix("1.0.0 → 1.1.0 ") == true)
        #expect(log[2].parts[0].columns == ["_id", "title", "cover", "pinned"])
        #expect(log[2].schemaVersion == "1.1.0")
        #expect(try StoreVerifier.verify(migrated).isClean)
        // The connection that migrated goes on recording, with the new columns.
        try store.database.transaction {
            try store.database.execute(#"UPDATE "Post" SET "pinned" = 1 WHERE "title" = 'a'"#)
        }
        let last = try f.log().last!
        #expect(last.kind == .changes && last.parts[0].changes[0].values.map(\.column) == [2])
    }

    @Test func aDamagedRecordIsRefusedNamingIt() throws {
        let f = try Fixture()
        let store = try f.open()
        let context = ObjectContext(store: store)
        _ = try context.insert("Post", ["title": .string("a")])
        try context.save()
        try store.database.execute(#"UPDATE "_vein_changes" SET "changes" = substr("changes", 1, length("changes") - 2)"#)
        #expect(throws: ChangeLogError.damaged("transaction 1, part 1 (Post) cannot be read")) { try f.log(store) }
    }

    @Test func readsNarrowToAnObjectOrAModel() throws {
        let f = try Fixture()
        let store = try f.open()
        let context = ObjectContext(store: store)
        let a = try context.insert("Post", ["title": .string("a")])
        try context.save()
        let b = try context.insert("Post", ["title": .string("b")])
        _ = try context.insert("Note", ["text": .string("n"), "post": .string(b.id)])
        try context.save()
        try a.set("title", .string("a2"))
        try context.save()
        var reader = ChangeLogReader()
        reader.id = a.id
        #expect(try reader.transactions(in: store.database).map(\.token) == [1, 3])
        reader.id = nil
        reader.tables = ChangeLogReader.tables(of: store.manifest.model(named: "Note")!, in: store.manifest)
        #expect(try reader.transactions(in: store.database).map(\.token) == [2])
        reader.tables = nil
        reader.afterToken = 2
        #expect(try reader.transactions(in: store.database).map(\.token) == [3])
    }

    /// Pruned transactions are gone, and a read after them says it expired: by token and by time.
    @Test func aReadReachingBackPastPrunedTransactionsExpires() throws {
        let f = try Fixture()
        let store = try f.open()
        let context = ObjectContext(store: store)
        for n in 0..<4 {
            _ = try context.insert("Note", ["text": .string("n\(n)")])
            try context.save()
        }
        let before = try f.log()
        try store.database.transaction { _ = try ChangeLogPruning.prune(in: store.database, through: 2) }
        #expect(try f.log().map(\.token) == [3, 4])
        var reader = ChangeLogReader()
        reader.afterToken = 2
        #expect(try reader.transactions(in: store.database).map(\.token) == [3, 4])
        reader.afterToken = 1
        #expect(throws: ChangeLogError.expired(since: "token 1", prunedThrough: 2)) { try reader.transactions(in: store.database) }
        reader.afterToken = nil
        reader.sinceClock = before[1].clock
        #expect(throws: (any Error).self) { try reader.transactions(in: store.database) }
        reader.sinceClock = before[1].clock + 1
        #expect(try reader.transactions(in: store.database).map(\.token) == [3, 4])
        #expect(try StoreVerifier.verify(store).isClean)
    }

    /// A delete keeps the values of the fields marked `preserveValueOnDeletion`, and only those, whichever
    /// way the row goes (its own delete, or a cascade); the manifest's canonical form keeps the flag.
    @Test func aDeleteKeepsThePreservedValues() throws {
        let text = schema("1.0.0", """
            Post: { fields: { title: { type: "string", preserveValueOnDeletion: true }, body: "string" },
                    relationships: { notes: { to: "Note", many: true, inverse: "post", deleteRule: "cascade" } } },
            Note: { fields: { text: { type: "string", preserveValueOnDeletion: true }, stars: "int" },
                    relationships: { post: { to: "Post", inverse: "notes" } } }
            """)
        let manifest = try ManifestParser.parse(text, file: "m")
        #expect(try ManifestParser.parse(manifest.canonicalText, file: "c").model(named: "Note")?.field(named: "text")?.preservesValueOnDeletion == true)
        #expect(manifest.canonicalText.contains("\"preserveValueOnDeletion\":true"))
        let f = try Fixture(text)
        let store = try f.open()
        let context = ObjectContext(store: store)
        let post = try context.insert("Post", ["title": .string("Hello"), "body": .string("b")])
        _ = try context.insert("Note", ["text": .string("nice"), "stars": .int(5), "post": .string(post.id)])
        try context.save()
        try context.delete(post)
        try context.save()
        let deletes = try f.log().last!.parts.map { part in (part.tableName, part.changes.map { $0.values.map { part.valueColumns[part.keyCount + $0.column] } }) }
        #expect(deletes.map(\.0).sorted() == ["Note", "Post"])
        #expect(deletes.first { $0.0 == "Post" }?.1 == [["title"]])
        #expect(deletes.first { $0.0 == "Note" }?.1 == [["text"]])
        let shown = try f.log().last!.parts.flatMap { LoggedModelChange.changes(of: LoggedTransaction(token: 0, kind: .changes, replica: "", clock: 0, author: nil, schemaVersion: "", detail: nil, parts: [$0]), manifest: manifest) }
        #expect(shown.map { JSONWriter.string($0.json) }.sorted().first?.contains("\"fields\":{\"text\":\"nice\"}") == true)
    }

    @Test func moreFieldsPreservedThanOneCallTakesAreRefused() {
        let fields = (0..<61).map { "f\($0): { type: \"int\", preserveValueOnDeletion: true }" }.joined(separator: ", ")
        #expect(throws: (any Error).self) { try ManifestParser.parse(schema("1.0.0", "M: { fields: { \(fields) } }"), file: "m") }
        do { _ = try ManifestParser.parse(schema("1.0.0", "M: { fields: { \(fields) } }"), file: "m") } catch let error as ManifestError {
            #expect(error.lines == ["m: models.M: M marks 61 fields preserveValueOnDeletion; at most 60 can be (what a delete keeps goes through one SQL function call)"])
        } catch {}
    }

    /// A new log keeps a week: a commit prunes the transactions older than that, in the same transaction,
    /// and a read from before them expires. A count policy keeps the newest N.
    @Test func retentionPrunesAtCommit() throws {
        let f = try Fixture()
        let store = try f.open()
        #expect(try ChangeLogRetention.current(in: store.database) == .days(7))
        let context = ObjectContext(store: store)
        for n in 0..<3 {
            _ = try context.insert("Note", ["text": .string("n\(n)")])
            try context.save()
        }
        // Make the first two eight days old, as if the store had been used then.
        let old = HybridClock.lowerBound(of: Date().addingTimeInterval(-8 * 86_400))
        try store.database.transaction {
            try store.database.execute(#"UPDATE "_vein_transactions" SET "clock" = ? + "token" WHERE "token" <= 2"#, [.integer(old)])
        }
        #expect(try f.log().map(\.token) == [1, 2, 3], "nothing prunes without a commit")
        _ = try context.insert("Note", ["text": .string("today")])
        try context.save()
        #expect(try f.log().map(\.token) == [3, 4])
        #expect(try ChangeLogPruning.prunedThrough(in: store.database)?.token == 2)

        try store.database.transaction { try ChangeLogRetention.count(1).store(in: store.database) }
        _ = try context.insert("Note", ["text": .string("last")])
        try context.save()
        #expect(try f.log().map(\.token) == [5])
        #expect(try StoreVerifier.verify(store).isClean)
    }

    /// An insert continued with a column it already gave is not something the writer writes: refused (a
    /// fuzzer's finding: joined, it had more columns than the table and did not read back).
    @Test func aContinuedInsertRepeatingAColumnIsRefused() throws {
        var writer = ChangeBytesWriter()
        writer.beginEntry(.insert)
        writer.appendCell(DatabaseValue.text("01JAAAAAAAAAAAAAAAAAAAAAAA"))
        writer.appendVarint(1)
        writer.appendVarint(0)
        writer.appendCell(DatabaseValue.integer(1))
        writer.beginEntry(.insertContinued)
        writer.appendCell(DatabaseValue.text("01JAAAAAAAAAAAAAAAAAAAAAAA"))
        writer.appendVarint(1)
        writer.appendVarint(0)
        writer.appendCell(DatabaseValue.integer(2))
        var reader = ChangeBytesReader(writer.bytes, keyCount: 1, columnCount: 2)
        #expect(throws: ChangeBytesReader.Damaged.self) { try reader.readAll() }
    }
}
