import Foundation
import Testing

/// The per-model conveniences as an app writes them, compiled as another package's code against the built
/// VeinCore (scripts/typecheck-app): everything they name is public, and the generated relationship query
/// compiles in a file that imports VeinCore alone.
@Suite struct ConveniencesPublicAPITests {
    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func anAppUsesEveryConvenience() throws {
        let result = try CompileTimeCheckTests.typecheck("""
            import Foundation
            import VeinCore

            @Model final class Post {
                @Unique var slug: String
                var views: Int = 0
                @Relationship(inverse: \\Attachment.post, deleteRule: .cascade) var attachments: [Attachment]
                init(slug: String) { self.slug = slug }
            }
            @Model final class Attachment {
                @Relationship var post: Post?
                var name: String
                init(name: String) { self.name = name }
            }

            func use(_ context: ModelContext, _ post: Post) throws {
                let all: [Post] = try Post.fetch(where: #Predicate { $0.views > 1 }, sort: [SortDescriptor(\\.slug)], in: context)
                let one: Post? = try Post.fetchOne(in: context)
                let hits: [Post] = try context.fetchAll(#Predicate<Post> { $0.slug.contains("vein") })
                let kept: Post = try Post.upsert(Post(slug: "a"), in: context)
                try post.delete()
                let members: [Attachment] = try post.attachments(where: #Predicate { $0.name.starts(with: "a") }, sort: [SortDescriptor(\\.name)])
                let same: [Attachment] = try post.related(\\.attachments)
                let raw = ModelPredicate<Post>(sql: "views > ?", arguments: [1]) { $0.slug.count > 1 }
                let rows: [Post] = try Post.fetch(where: raw, in: context) + context.fetchAll(raw)
                    + context.fetch(FetchDescriptor(predicate: raw, fetchLimit: 2))
                _ = try Post.fetchOne(where: ModelPredicate(filter: { $0.views == 0 }), in: context)
                do { _ = try Post.fetch(where: ModelPredicate(sql: "1"), in: context) } catch let error as ReadOnlySQLError { _ = error }
                do { try post.delete() } catch let error as ModelConvenienceError { _ = error.description }
                _ = (all, one, hits, kept, members, same, rows)
            }
            """)
        #expect(result.errors == [])
        #expect(result.status == 0)
    }

    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func theGeneratedQueryCompilesWithVeinCoreAlone() throws {
        let result = try CompileTimeCheckTests.typecheck("""
            import VeinCore
            @Model public final class Post {
                @Relationship(inverse: \\Attachment.post) public var attachments: [Attachment]
                public init() {}
            }
            @Model public final class Attachment {
                @Relationship public var post: Post?
                public init() {}
            }
            public func members(_ post: Post) throws -> [Attachment] { try post.attachments() }
            """)
        #expect(result.errors == [])
        #expect(result.status == 0)
    }

    /// A public model with an internal member type and a private relationship: the generated queries take
    /// the lower access (internal, none), so the app compiles.
    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func aPublicModelWithAnInternalMemberTypeCompiles() throws {
        let result = try CompileTimeCheckTests.typecheck("""
            import VeinCore
            @Model public final class Post {
                @Relationship(inverse: \\Attachment.post) var attachments: [Attachment]
                @Relationship(inverse: \\Secret.post) private var secrets: [Secret]
                public init() {}
            }
            @Model final class Attachment {
                @Relationship var post: Post?
                init() {}
            }
            @Model public final class Secret {
                @Relationship public var post: Post?
                public init() {}
            }
            func members(_ post: Post) throws -> [Attachment] { try post.attachments() }
            """)
        #expect(result.errors == [])
        #expect(result.status == 0)
    }
}
