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
            try context.insert(post)
        }, verify: { context in
            migrated = try context.fetch(FetchDescriptor<Post>()).map {
                "\($0.title)|\($0.sortTitle)|\($0.body)|\($0.publishedAt == nil)|\($0.attachments.map(\.name))"
            }
        })
        #expect(migrated == [#"Hello, Vein|hello, vein|A first post.|true|["a.png"]"#])
    }
}
