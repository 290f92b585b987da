import Foundation
import Testing
import VeinCore
import VeinTesting
@testable import BlogApp

/// The plan, tested as the announcement recommends: its shape, and data seeded at 0.0.1 read at 0.0.2.
@Suite struct MigrationTests {
    let tester = MigrationTester(Migration.self, appID: appID)

    /// Versions in order, one stage per pair, and what `vein migrate check` checks.
    @Test func thePlanChecks() throws {
        try tester.checkPlan()
    }

    /// The renamed field keeps its text, the new optional date is nil, and the plan fills `sortTitle`.
    @Test func postsKeepTheirTextAndGetASortTitle() throws {
        var migrated: [String] = []
        try tester.migrate(from: V0_0_1.self, seed: { context in
            let post = V0_0_1.Post(title: "Hello, Vein", content: "A first post.")
            post.attachments = [V0_0_1.Attachment(name: "a.png", fileType: .png, data: Data([1, 2, 3]))]
            context.insert(post)
        }, verify: { context in
            migrated = try context.fetch(FetchDescriptor<Post>()).map {
                "\($0.title)|\($0.sortTitle)|\($0.body)|\($0.publishedAt == nil)|\($0.attachments.map(\.name))"
            }
        })
        #expect(migrated == [#"Hello, Vein|hello, vein|A first post.|true|["a.png"]"#])
    }

    /// `BlogApp delete`: the post goes, and its attachments with it (cascade); the relationship query
    /// finds the large one in SQL before. (`V0_0_2.Attachment`: Swift Testing has an `Attachment` too.)
    @Test func deletingAPostDeletesItsAttachments() throws {
        let container = try ModelContainer(V0_0_2.self, migration: Migration.self, at: nil, appID: appID)
        try container.migrate()
        let context = container.context
        let post = Post(title: "Hello", body: "A post with two attachments.")
        post.attachments = [
            V0_0_2.Attachment(name: "shot.png", fileType: .png, data: Data(count: 1_572_864)),
            V0_0_2.Attachment(name: "main.swift", fileType: .swift, data: Data("print(1)".utf8)),
        ]
        context.insert(post)
        context.insert(Post(title: "Kept", body: "No attachments."))
        try context.save()
        #expect(try post.attachments(where: #Predicate { $0.sizeMiB > 1 }).map(\.name) == ["shot.png"])

        #expect(try deletePost(titled: "Hello", in: context) == 2)
        #expect(try deletePost(titled: "Hello", in: context) == nil)
        #expect(try Post.fetch(in: context).map(\.title) == ["Kept"])
        #expect(try context.fetchCount(FetchDescriptor<V0_0_2.Attachment>()) == 0)
    }
}
