import Foundation
import Testing
@testable import Vein

/// What the REPL asks of the engine: incomplete input told from wrong input, each statement's own changes,
/// a fetch explained, and raw SQL that can only read.
@Suite struct StatementSessionTests {
    func kind(_ source: String) -> ExpressionError.Kind? {
        do {
            _ = try QueryParser.parse(source)
            return nil
        } catch {
            return error.kind
        }
    }

    @Test func incompleteInputIsToldFromWrongInput() {
        for source in ["Post where (views > 1", "Post where views > 1 &&", "insert Post(title: \"a\",", "Post where title == \"abc",
                       "Post where [1, 2", "Post where", "update Post set views =", "Post where views >",
                       "Post where title.", "Post sort title,", "insert Post(title:",
                       "Post where attachments.contains { $0.sizeMiB > 1", "Post where attachments.allSatisfy {"] {
            #expect(kind(source) == .incomplete, "\(source)")
        }
        for source in ["Post where views > 1)", "Post wher views > 1", "Post where views = 1", "insert Post(title: 'a')",
                       "Post where (views > 1))", "Post where views > 1 junk", "Post limit x",
                       // Swift allows nothing, not even a line break, between a prefix operator and its operand.
                       "count Post where !"] {
            #expect(kind(source) == .wrong, "\(source)")
        }
        #expect(kind("Post where (views > 1\n && views < 5)") == nil)
    }

    /// A multi-line statement's error shows the line it is in, with the caret under the column.
    @Test func anErrorInAMultiLineStatementShowsItsLine() throws {
        let error = ExpressionError("no field 'titel' in Post", column: 24, source: "Post where views > 1 &&\ntitel == \"x\"")
        #expect(error.rendered == "no field 'titel' in Post\n  titel == \"x\"\n  ^")
    }

    func blogContext() throws -> (TempDir, ObjectContext) {
        let dir = try TempDir()
        let store = try dir.plaintextStore("b.vein", manifest: try Fixtures.blogManifest())
        return (dir, ObjectContext(store: store))
    }

    func changes(_ result: QueryResult) -> [ObjectContext.Change] {
        if case .changes(let changes) = result { return changes }
        return []
    }

    @Test func eachStatementReportsItsOwnChanges() throws {
        let (dir, context) = try blogContext()
        _ = dir
        let runner = QueryRunner(context: context)
        let first = changes(try runner.run(#"insert Post(title: "a", content: "x")"#))
        let second = changes(try runner.run(#"insert Post(title: "b", content: "y")"#))
        #expect(first.count == 1 && second.count == 1 && first[0].id != second[0].id)
        let postID = first[0].id
        try context.save()
        let bump = changes(try runner.run(#"update Post where title == "a" set views = views + 1"#))
        #expect(bump == [ObjectContext.Change(kind: .update, model: "Post", id: postID, fields: ["views"])])
        #expect(changes(try runner.run(#"update Post where title == "a" set views = views + 1"#)) == bump)
        // The post an attachment names changes too, though its change was already pending.
        let attach = changes(try runner.run(#"insert Attachment(name: "a.png", fileType: .png, sizeMiB: 1, post: #id("\#(postID)"))"#))
        #expect(attach.map(\.kind) == [.insert, .update] && attach[1].id == postID)
        // Deleting what was inserted in this context leaves nothing pending, and still it was deleted.
        let deleted = changes(try runner.run(#"delete Attachment where name == "a.png""#))
        #expect(deleted.first?.kind == .delete && deleted.first?.model == "Attachment")
    }

    @Test func explainNamesTheSQLAndWhatIsLeftToMemory() throws {
        let (dir, context) = try blogContext()
        _ = dir
        let runner = QueryRunner(context: context)
        let exact = try #require(try runner.explain("Post where views > 10 sort publishedAt desc limit 5"))
        #expect(exact.sql.contains(#"WHERE ("Post"."views" > ?)"#) && exact.sql.hasSuffix("LIMIT ? OFFSET ?"))
        #expect(exact.arguments == [.integer(10), .integer(5), .integer(0)])
        #expect(!exact.queryPlan.isEmpty && exact.inMemory.isEmpty)
        // A closure that can trap keeps Swift's member order, which SQL does not: left to memory.
        let inexact = try #require(try runner.explain(#"Post where views > 0 && attachments.contains { $0.name.count % 0 == 1 } limit 5"#))
        #expect(inexact.inMemory.count == 2 && !inexact.sql.contains("LIMIT"))
        _ = try runner.run(#"insert Post(title: "a", content: "x")"#)
        #expect(try runner.explain("count Post")?.inMemory.first?.hasPrefix("unsaved changes of Post") == true)
        #expect(try runner.explain(#"insert Post(title: "a", content: "x")"#) == nil)
    }

    @Test func rawSQLOnlyReads() throws {
        let (dir, context) = try blogContext()
        _ = (dir, context)
        let store = try Store.open(dir.path("b.vein"), keys: KeyOptions(keyring: nil))
        let (columns, rows) = try store.database.readOnlyQuery(#"SELECT count(*) AS n FROM "Post""#)
        #expect(columns == ["n"] && rows == [[.integer(0)]])
        for sql in [#"DELETE FROM "Post""#, "PRAGMA rekey = 'x'", "ATTACH 'x' AS y", "BEGIN", "  insert into Post values (1)", #"WITH x(n) AS (VALUES (1)) DELETE FROM "Post""#] {
            #expect(throws: ReadOnlySQLError.writes(sql)) { try store.database.readOnlyQuery(sql) }
        }
        // Behind EXPLAIN, SQLCipher would still run key and rekey while preparing; sqlcipher_export writes
        // every table into the temp schema (later unqualified names would read the copy); neither may run.
        for sql in ["EXPLAIN PRAGMA key = 'y'", "EXPLAIN PRAGMA rekey = 'x'", "explain query plan PRAGMA key = 'y'",
                    "SELECT sqlcipher_export('temp')", "SELECT load_extension('x')", #"SELECT * FROM "Post", (SELECT sqlcipher_export('temp'))"#] {
            #expect(throws: ReadOnlySQLError.writes(sql)) { try store.database.readOnlyQuery(sql) }
        }
        #expect(try store.database.readOnlyQuery(#"SELECT count(*) FROM "Post""#).rows == [[.integer(0)]])
        #expect(try store.database.readOnlyQuery("SELECT count(*) FROM sqlite_temp_master").rows == [[.integer(0)]])
        #expect(throws: ReadOnlySQLError.severalStatements) { try store.database.readOnlyQuery("SELECT 1; DELETE FROM \"Post\"") }
        #expect(try store.database.readOnlyQuery("SELECT 1;").rows == [[.integer(1)]])
    }
}

/// A statement that fails leaves a context that stays open (the REPL's) as it was.
@Suite struct StatementFailureTests {
    @Test func anUpdateThatTrapsOnALaterRowChangesNoRow() throws {
        let dir = try TempDir()
        let context = ObjectContext(store: try dir.plaintextStore("b.vein", manifest: try Fixtures.blogManifest()))
        let runner = QueryRunner(context: context)
        for views in [5, 0] { _ = try runner.run(#"insert Post(title: "t", content: "x", views: \#(views))"#) }
        try context.save()
        // 100 / views traps on the second row (sorted by views desc): the first must not stay changed.
        #expect(throws: (any Error).self) { try runner.run("update Post sort views desc set views = 100 / views") }
        #expect(!context.hasChanges)
        #expect(context.changes().isEmpty)
    }
}
