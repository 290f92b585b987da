import Foundation
import Testing
@testable import Vein

/// Where Swift traps (integer overflow, division by zero), a condition is an error, whether SQL or the
/// in-memory evaluator computes it, and whatever order SQL would like to filter in.
@Suite struct ArithmeticTrapTests {
    /// A blog store in memory with posts of the given views (titles t0, t1, …; the last title empty).
    static func context(views: [Int64]) throws -> ObjectContext {
        let manifest = try Fixtures.blogManifest()
        let database = try Database(path: ":memory:", mode: .create, key: nil)
        try StoreCreator.layOut(database, manifest: manifest, now: Date())
        let context = try ObjectContext(database: database, manifest: manifest)
        for (i, v) in views.enumerated() {
            _ = try context.insert("Post", ["title": .string(i == views.count - 1 ? "" : "t\(i)"), "content": .string("c"), "views": .int(v)])
        }
        try context.save()
        return context
    }

    /// The count, or the error it throws.
    static func count(_ context: ObjectContext, _ condition: String) -> Result<Int, EvaluationError> {
        do {
            guard case .count(let n) = try QueryRunner(context: context).run("count Post where \(condition)") else { return .success(-1) }
            return .success(n)
        } catch let error as EvaluationError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error \(error)")
            return .success(-2)
        }
    }

    @Test func overflowAndDivisionByZeroAreErrorsInSQLAndInMemory() throws {
        let context = try Self.context(views: [0, 1, 3, 7])
        let cases: [(String, EvaluationError)] = [
            ("views * 4611686018427387904 > 0", .arithmeticOverflow("3 * 4611686018427387904")),
            ("9223372036854775807 + 1 > 0", .arithmeticOverflow("9223372036854775807 + 1")),
            ("views - 9223372036854775807 - 2 < 0", .arithmeticOverflow("-9223372036854775807 - 2")),
            ("-(views - 9223372036854775807 - 1) > 0", .arithmeticOverflow("-(-9223372036854775808)")),
            ("(views - 9223372036854775807 - 1) / -1 > 0", .arithmeticOverflow("-9223372036854775808 / -1")),
            ("(views - 9223372036854775807 - 1) % -1 == 0", .arithmeticOverflow("-9223372036854775808 % -1")),
            ("100 / views > 0", .divisionByZero),
            ("views % 0 == 1", .divisionByZero),
            ("100 % (views - views) == 1", .divisionByZero),
        ]
        for (condition, error) in cases {
            #expect(Self.count(context, condition) == .failure(error), "\(condition)")
        }
        // The evaluator, on the same rows in memory, throws the same errors.
        let all = try context.fetch(ObjectFetch(model: "Post"))
        let manifest = try Fixtures.blogManifest()
        for (condition, error) in cases {
            let typed = try TypeChecker.checkPredicate(condition, model: manifest.model(named: "Post")!, manifest: manifest)
            #expect(throws: error, "in memory: \(condition)") {
                for object in all { _ = try context.evaluator(for: object).test(typed) }
            }
        }
        // What cannot trap still runs and answers.
        #expect(Self.count(context, "views + 1 > 2") == .success(2))
        #expect(Self.count(context, "views / 2 == 1 && views % 3 == 0") == .success(1))
    }

    @Test func aPreFilterNeverHidesAnErrorNorInventsOne() throws {
        let context = try Self.context(views: [0, 1, 3, 7])
        // Swift evaluates the division first, on every row: it traps on views == 0, whatever comes after.
        #expect(Self.count(context, "100 / views > 0 && title == \"nope\"") == .failure(.divisionByZero))
        #expect(Self.count(context, "100 / views > 0 && publishedAt != nil") == .failure(.divisionByZero))
        #expect(Self.count(context, "100 / title.count > 0 && views > 100") == .failure(.divisionByZero))
        #expect(Self.count(context, "!(100 / views > 0) || views > 100") == .failure(.divisionByZero))
        // A conjunct before it stops Swift first on the row that would trap: no error.
        #expect(Self.count(context, "views > 0 && 100 / views > 0") == .success(3))
        #expect(Self.count(context, "views == 0 || 100 / views > 20") == .success(3))
        #expect(Self.count(context, "title.lowercased() == \"t1\" && 100 / views > 0") == .success(1))
        #expect(Self.count(context, "title.count > 0 && 100 / views > 0 && views < 5") == .failure(.divisionByZero))
        #expect(Self.count(context, "title.count > 1 && views * 9223372036854775807 > 0") == .failure(.arithmeticOverflow("3 * 9223372036854775807")))
        #expect(Self.count(context, "views < 2 && views * 9223372036854775807 >= 0") == .success(2))
    }

    @Test func aLimitDoesNotStopBeforeARowThatTraps() throws {
        let context = try Self.context(views: [0, 1, 3, 7])
        for statement in ["Post where 100 / (views - 7) > 0 limit 1", "Post where 100 / (views - 7) < 0 limit 1 offset 1"] {
            #expect(throws: EvaluationError.divisionByZero, "\(statement)") { _ = try QueryRunner(context: context).run(statement) }
        }
        guard case .objects(_, let rows) = try QueryRunner(context: context).run("Post where 100 / (views + 1) > 20 sort views desc limit 2 offset 1") else {
            Issue.record("no rows")
            return
        }
        #expect(try rows.map { try $0["views"] } == [.int(1), .int(0)])
    }

    @Test func aConditionOnARelationshipIsOnlyEvaluatedOnItsObjects() throws {
        let context = try Self.context(views: [0, 5])
        let five = try #require(try context.fetch(ObjectFetch(model: "Post")).first { try $0["views"] == .int(5) })
        let attachment = try context.insert("Attachment", ["name": .string("a"), "fileType": .string("png"), "sizeMiB": .double(1),
                                                           "post": .string(five.id)])
        try context.save()
        // Swift filters the relationship's objects only: the post with views == 0 is never divided by.
        guard case .objects(_, let posts) = try QueryRunner(context: context).run(#"Attachment(#id("\#(attachment.id)")).post where 100 / views > 0"#) else {
            Issue.record("no rows")
            return
        }
        #expect(posts.map(\.id) == [five.id])
    }

    @Test func sqlNeverRaisesWhereSwiftWouldNotEvaluate() throws {
        // Everything exact in SQL: the CASE keeps Swift's order, so SQLite cannot run the right side first.
        let compiled = try #require(SQLCompiler(table: "\"Post\"").condition(try TypeChecker.checkPredicate(
            "views > 0 && 100 / views > 0", model: try Fixtures.blogManifest().model(named: "Post")!, manifest: try Fixtures.blogManifest())))
        #expect(compiled.isExact && compiled.sql.hasPrefix("(CASE WHEN"))
        let plain = try #require(SQLCompiler(table: "\"Post\"").condition(try TypeChecker.checkPredicate(
            "views > 0 && title == \"x\"", model: try Fixtures.blogManifest().model(named: "Post")!, manifest: try Fixtures.blogManifest())))
        #expect(plain.isExact && plain.sql.contains(" AND "))
    }
}
