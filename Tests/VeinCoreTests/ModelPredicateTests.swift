import Foundation
import Testing
import VeinCore

/// `ModelPredicate` (docs/app-guide.md): a raw SQL condition over the model's table plus a Swift filter, which
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
        #expect(try context.fetchCount(FetchDescriptor(predicate: ModelPredicate<Post>(sql: "views > 8"))) == 2)
        #expect(try context.fetchAll(ModelPredicate<Post>(filter: { $0.views == 9 })).map(\.title) == ["Hello", "Notes"])
        #expect(try context.fetchAll(ModelPredicate(#Predicate<Post> { $0.views == 0 })).map(\.title) == ["About Vein"])
    }

    /// SQL reads the store as saved: an unsaved insert is not among its rows.
    @Test func sqlSeesTheStoreAsSaved() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        let draft = Post(title: "draft", content: "")
        draft.views = 50
        context.insert(draft)
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
        ] {
            #expect(throws: expected) { try context.fetchAll(ModelPredicate<Post>(sql: condition)) }
        }
        let statements = "1); DELETE FROM \"Post\"; SELECT (1"
        #expect(throws: SQLConditionError.unbalancedParentheses(statements)) { try context.fetchAll(ModelPredicate<Post>(sql: statements)) }
        #expect(try container.newContext().fetchCount(Post.self) == 5)
        // A comment at the end does not hide the fetch's closing parenthesis.
        #expect(try context.fetchAll(ModelPredicate<Post>(sql: "views = 0 -- the unread ones")).map(\.title) == ["About Vein"])
    }

    /// Arguments bind by position and the fetch binds its own (the window, a relationship's owner) after
    /// them: a `?` count other than the arguments', or a numbered or named parameter, would shift them.
    @Test func theParametersAreExactlyTheArguments() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        for (sql, arguments, expected) in [
            ("views > ? AND views < ?", [5], SQLConditionError.argumentCount("views > ? AND views < ?", parameters: 2, arguments: 1)),
            ("views > ?", [1, 2], SQLConditionError.argumentCount("views > ?", parameters: 1, arguments: 2)),
            ("views > 1", [1], SQLConditionError.argumentCount("views > 1", parameters: 0, arguments: 1)),
            ("views > ?1", [1], SQLConditionError.namedParameter("views > ?1", parameter: "?1")),
            ("title = :title", ["Notes"], SQLConditionError.namedParameter("title = :title", parameter: ":title")),
            ("views > ? AND title = @t", [1, "Notes"], SQLConditionError.namedParameter("views > ? AND title = @t", parameter: "@t")),
        ] as [(String, [any FieldValue & Sendable], SQLConditionError)] {
            let condition = ModelPredicate<Post>(sql: sql, arguments: arguments)
            #expect(throws: expected) { try context.fetch(FetchDescriptor(predicate: condition, fetchLimit: 2)) }
            #expect(throws: expected) { try context.fetchCount(FetchDescriptor(predicate: condition)) }
        }
        #expect(SQLConditionError.argumentCount("views > ? AND views < ?", parameters: 2, arguments: 1).description
                == "SQL condition \"views > ? AND views < ?\": it has 2 '?' but 1 argument was given")
        #expect(SQLConditionError.namedParameter("views > ?1", parameter: "?1").description
                == "SQL condition \"views > ?1\": parameter ?1 is numbered or named; use '?' (arguments bind in order)")
        let between = ModelPredicate<Post>(sql: "views > ? AND views < ?", arguments: [1, 9])
        #expect(try context.fetch(FetchDescriptor(predicate: between, sortBy: [SortDescriptor(\.title)], fetchLimit: 1, fetchOffset: 1)).map(\.title)
                == ["Vein on Linux"])
    }

    /// The condition is put in parentheses among the fetch's own terms: it cannot close them early, leave
    /// one open, comment out the rest, or end the statement.
    @Test func aConditionStaysInsideItsParentheses() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        for (sql, expected) in [
            ("views > 0) /*", SQLConditionError.unbalancedParentheses("views > 0) /*")),
            ("views = 0) OR (1", SQLConditionError.unbalancedParentheses("views = 0) OR (1")),
            ("(views > 0", SQLConditionError.unbalancedParentheses("(views > 0")),
            ("views > 0 /* the rest", SQLConditionError.unterminated("views > 0 /* the rest")),
            ("title = 'Notes", SQLConditionError.unterminated("title = 'Notes")),
            ("\"views > 0", SQLConditionError.unterminated("\"views > 0")),
            ("views > 0;", SQLConditionError.semicolon("views > 0;")),
        ] {
            #expect(throws: expected) { try context.fetch(FetchDescriptor(predicate: ModelPredicate<Post>(sql: sql), fetchLimit: 1)) }
        }
        // With a #Predicate beside it, `a) OR (1` would have made the #Predicate's term optional.
        var both = FetchDescriptor(predicate: ModelPredicate<Post>(sql: "views = 0) OR (1"))
        both.predicate = #Predicate { $0.views > 100 }
        #expect(throws: SQLConditionError.unbalancedParentheses("views = 0) OR (1")) { try context.fetch(both) }
        #expect(SQLConditionError.unbalancedParentheses("views > 0) /*").description
                == "SQL condition \"views > 0) /*\": its parentheses do not balance; a condition cannot close a parenthesis it did not open")
        #expect(SQLConditionError.unterminated("views > 0 /*").description
                == "SQL condition \"views > 0 /*\": a comment, string or quoted name does not end")
        #expect(SQLConditionError.semicolon("1;").description
                == "SQL condition \"1;\": ';' is not allowed; a condition is one expression, not statements")
        // Parentheses and `;` inside literals, quoted names and comments are text, not structure.
        for sql in ["title <> ')' AND title <> ';'", "\"views\" >= 0 -- ) ;", "/* ( */ views >= 0", "title <> 'it''s (' AND [views] >= 0"] {
            #expect(try context.fetchAll(ModelPredicate<Post>(sql: sql)).count == 5, "\(sql)")
        }
    }

    /// Stored text is NFC (docs/store-format.md): a string argument is compared in the same form.
    @Test func stringArgumentsAreComparedAsStored() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        context.insert(Post(title: "Caf\u{E9}", content: ""))
        try context.save()
        let decomposed = "Cafe\u{301}"
        #expect(try context.fetchAll(ModelPredicate<Post>(sql: "title = ?", arguments: [decomposed])).map(\.title) == ["Caf\u{E9}"])
    }

    /// Counted in SQL unless the context has unsaved changes of the model: a row it deleted is not
    /// counted (as the fetch leaves it out), though the store still has it.
    @Test func aCountWithASQLConditionLeavesOutUnsavedDeletes() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        let popular = FetchDescriptor(predicate: ModelPredicate<Post>(sql: "views > ?", arguments: [8]))
        #expect(try context.fetchCount(popular) == 2)
        try #require(try Post.fetchOne(where: #Predicate { $0.title == "Notes" }, in: context)).delete()
        #expect(try context.fetchCount(popular) == 1)
        #expect(try context.fetch(popular).count == 1)
    }
}
