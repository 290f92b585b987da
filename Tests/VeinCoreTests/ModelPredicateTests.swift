import Foundation
import Testing
import VeinCore

/// `ModelPredicate` (SPEC §10): a raw SQL condition over the model's table plus a Swift filter, which
/// can only read.
@Suite struct ModelPredicateTests {
    @Test func sqlThenTheSwiftFilterThenTheWindow() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        let many = ModelPredicate<Post>(sql: "views >= ? AND title <> ?", arguments: [2, "Notes"])
        #expect(try Post.fetch(where: many, sort: [SortDescriptor(\.title)], in: context).map(\.title) == ["Hello", "Vein 1.0", "Vein on Linux"])
        // The window applies after the Swift filter: in SQL it would keep "Hello", which the filter drops.
        let vein = ModelPredicate<Post>(sql: "views >= ?", arguments: [2]) { $0.title.hasPrefix("Vein") }
        #expect(try context.fetch(FetchDescriptor(predicate: vein, sortBy: [SortDescriptor(\.title)], fetchLimit: 1)).map(\.title) == ["Vein 1.0"])
        #expect(try Post.fetchOne(where: vein, sort: [SortDescriptor(\.views)], in: context)?.title == "Vein on Linux")
        #expect(try context.fetchCount(FetchDescriptor(predicate: vein)) == 2)
        #expect(try context.fetchCount(FetchDescriptor(predicate: ModelPredicate<Post>(sql: "views > 8"))) == 2, "counted in SQL with the condition")
        #expect(try context.fetchAll(ModelPredicate<Post>(filter: { $0.views == 9 })).map(\.title) == ["Hello", "Notes"])
        #expect(try context.fetchAll(ModelPredicate(#Predicate<Post> { $0.views == 0 })).map(\.title) == ["About Vein"])
    }

    /// SQL reads the store as saved: an unsaved insert is not among its rows.
    @Test func sqlSeesTheStoreAsSaved() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        let draft = Post(title: "draft", content: "")
        draft.views = 50
        try context.insert(draft)
        let popular = ModelPredicate<Post>(sql: "views > 8")
        #expect(try context.fetchAll(popular).map(\.title) == ["Hello", "Notes"])
        try context.save()
        #expect(try context.fetchAll(popular).map(\.title) == ["Hello", "Notes", "draft"])
    }

    /// The condition is prepared alone under the REPL's read-only authorizer before the fetch runs:
    /// nothing that writes gets through, and nothing is written.
    @Test func aConditionCannotWrite() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        for (condition, expected) in [
            (#"sqlcipher_export('main') IS NULL"#, ReadOnlySQLError.writes(#"sqlcipher_export('main') IS NULL"#)),
            (#"load_extension('x') IS NULL"#, ReadOnlySQLError.writes(#"load_extension('x') IS NULL"#)),
            ("1); DELETE FROM \"Post\"; SELECT (1", ReadOnlySQLError.severalStatements),
        ] {
            #expect(throws: expected) { try context.fetchAll(ModelPredicate<Post>(sql: condition)) }
        }
        #expect(try container.newContext().fetchCount(Post.self) == 5)
        // A comment at the end does not hide the fetch's closing parenthesis.
        #expect(try context.fetchAll(ModelPredicate<Post>(sql: "views = 0 -- the unread ones")).map(\.title) == ["About Vein"])
    }
}
