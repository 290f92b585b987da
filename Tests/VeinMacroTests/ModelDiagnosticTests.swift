import Testing

/// Every misuse @Model reports: the message text, where it points, and the fix-it's result.
@Suite struct ModelDiagnosticTests {
    @Test func onAStruct() throws {
        let expansion = MacroExpansion("@Model struct Post {\n    var title: String\n}")
        #expect(expansion.messages == ["@Model applies to a final class, not to a struct"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.location(of: diagnostic) == "1:1")
        #expect(expansion.applyingFixIt(of: diagnostic) == "@Model final class Post {\n    var title: String\n}")
        #expect(!expansion.expanded.contains("_$backing"), "nothing generated")
    }

    @Test func onAnEnumAndAnActor() {
        #expect(MacroExpansion("@Model enum E { case a }").messages == ["@Model applies to a final class, not to an enum"])
        #expect(MacroExpansion("@Model actor A {}").messages == ["@Model applies to a final class, not to a actor"])
    }

    @Test func onANonFinalClass() throws {
        let expansion = MacroExpansion("@Model class Post {\n    var title: String\n}")
        #expect(expansion.messages == ["@Model class 'Post' must be final (a subclass could not add persisted properties)"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.location(of: diagnostic) == "1:8")
        #expect(expansion.applyingFixIt(of: diagnostic) == "@Model final class Post {\n    var title: String\n}")
    }

    @Test func anUnsupportedFieldTypeWithAReplacement() throws {
        let expansion = MacroExpansion("@Model final class M {\n    var ratio: Float?\n}")
        #expect(expansion.messages == ["'ratio' has type 'Float', which Vein does not store; use Double (field types: String, Int, "
            + "Double, Bool, Date, Data, UUID, String or Int enums, Codable values, optionals of these)"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.location(of: diagnostic) == "2:16")
        #expect(expansion.applyingFixIt(of: diagnostic) == "@Model final class M {\n    var ratio: Double?\n}")
    }

    @Test func anUnsupportedFieldTypeInsideAnArray() throws {
        let expansion = MacroExpansion("@Model final class M {\n    var counts: [Int32]\n}")
        #expect(expansion.messages.first?.hasPrefix("'counts' has type 'Int32', which Vein does not store; use Int (") == true)
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.applyingFixIt(of: diagnostic) == "@Model final class M {\n    var counts: [Int]\n}")
    }

    @Test func anUnsupportedFieldTypeWithoutAReplacement() throws {
        let expansion = MacroExpansion("@Model final class M {\n    var callback: () -> Void\n}")
        #expect(expansion.messages == ["'callback' has type '() -> Void', which Vein does not store (field types: String, Int, "
            + "Double, Bool, Date, Data, UUID, String or Int enums, Codable values, optionals of these)"])
        #expect(expansion.diagnostics.first?.fixIts.isEmpty == true)
    }

    @Test func aPropertyWithoutAWrittenType() {
        let expansion = MacroExpansion("@Model final class M {\n    var views = 0\n}")
        #expect(expansion.messages == ["persisted property 'views' needs a written type (Vein reads the type from the declaration)"])
    }

    /// The macro's plain field types are the table's (VeinFieldTypes), qualified spellings too.
    @Test func aRelationshipToAQualifiedFieldType() throws {
        let expansion = MacroExpansion("@Model final class M {\n    @Relationship var stamp: Foundation.Date?\n}")
        #expect(expansion.messages == ["@Relationship 'stamp' has type 'Foundation.Date?', a field type: a relationship points to @Model classes"])
    }

    @Test func aRelationshipToAFieldType() throws {
        let expansion = MacroExpansion("@Model final class M {\n    @Relationship var tags: [String]\n}")
        #expect(expansion.messages == ["@Relationship 'tags' has type '[String]', a field type: a relationship points to @Model classes"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.location(of: diagnostic) == "2:29")
        #expect(expansion.applyingFixIt(of: diagnostic) == "@Model final class M {\n    var tags: [String]\n}")
    }

    @Test func aToOneRelationshipThatIsNotOptional() throws {
        let expansion = MacroExpansion("@Model final class M {\n    @Relationship var post: Post\n}")
        #expect(expansion.messages == ["to-one @Relationship 'post' must be optional ('Post?'): a new or unlinked object points to nothing"])
        let diagnostic = try #require(expansion.diagnostics.first)
        #expect(expansion.applyingFixIt(of: diagnostic) == "@Model final class M {\n    @Relationship var post: Post?\n}")
    }

    @Test func aRelationshipOfAnotherShape() {
        let expansion = MacroExpansion("@Model final class M {\n    @Relationship var posts: (Post, Post)\n}")
        #expect(expansion.messages == ["@Relationship 'posts' has type '(Post, Post)': a relationship is 'Model?' (to-one) or '[Model]' (to-many)"])
    }

    @Test func anInverseThatIsNotAKeyPath() {
        let expansion = MacroExpansion("@Model final class M {\n    @Relationship(inverse: \"post\") var items: [Item]\n}")
        #expect(expansion.messages == ["the inverse of @Relationship 'items' must be a key path such as \\Other.property"])
    }

    @Test func everyProblemIsReportedAtOnce() {
        let expansion = MacroExpansion("@Model final class M {\n    var a: Float\n    var b: UInt8\n}")
        #expect(expansion.messages.count == 2)
    }

    /// `#Index` misuse the compiler lets through (the key paths type-check as `PartialKeyPath<Post>`, or the
    /// generic argument names another model): @Model says so instead of indexing something else.
    @Test func indexMisuse() throws {
        func messages(_ index: String) -> [String] {
            MacroExpansion("""
                @Model final class Post {
                    \(index)
                    var title: String
                    @Relationship var author: Author?
                    init() {}
                }
                """).messages
        }
        #expect(messages("#Index<Author>([\\.title])")
                == ["#Index<Author> in 'Post': an index is declared in the class it indexes; write #Index<Post>"])
        #expect(messages("#Index<Post>([\\.author.name])")
                == ["#Index key path '\\.author.name' goes past 'author': an index covers fields and to-one relationships "
                    + "of 'Post' itself; write \\.author"])
        #expect(messages("#Index<Post>([\\.author?.name])")
                == ["#Index key path '\\.author?.name' goes past 'author': an index covers fields and to-one relationships "
                    + "of 'Post' itself; write \\.author"])
        #expect(messages("#Index<Post>([\\.title, keys.first!])")
                == ["'keys.first!' in #Index is not a key path of 'Post' such as \\.title"])
        #expect(messages("#Index<Post>(allKeys)")
                == ["#Index takes lists of key paths of 'Post' such as [\\.title]; 'allKeys' is not one"])
        #expect(messages("#Index<Post>([\\.title], [\\.author, \\.title])") == [])
        #expect(messages("#Index<Self>([\\.title])") == [])
        #expect(messages("#Index<Blog.Post>([\\.title])") == [])
        #expect(messages("#Index<Blog.Author>([\\.title])")
                == ["#Index<Blog.Author> in 'Post': an index is declared in the class it indexes; write #Index<Post>"])
        let expansion = MacroExpansion("@Model final class Post {\n    #Index<Author>([\\.title])\n    var title: String\n    init() {}\n}")
        #expect(expansion.location(of: try #require(expansion.diagnostics.first)) == "2:12")
    }
}
