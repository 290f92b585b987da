import Foundation
import Testing
import VeinCore
import VeinTesting

/// `VeinTesting.MigrationTester`: seed at an old version, migrate, assert at the new one; the plan's shape.
@Suite struct MigrationTesterTests {
    @Test func seedsMigratesAndVerifies() throws {
        let tester = MigrationTester(BlogMigration.self, appID: "com.example.blog")
        var verified: [String] = []
        let report = try tester.migrate(from: V0_0_1.self, seed: { context in
            let post = Post(title: "Hello Vein", content: "first")
            post.views = 7
            context.insert(post)
            context.insert(Post(title: "spam", content: "buy"))
        }, verify: { context in
            verified = try context.fetch(BlogV0_0_2.Post.self).map { "\($0.title)|\($0.body)|\($0.summary)" }
        })
        #expect(verified == ["Hello Vein|first|hello vein"])
        #expect(report.stages.count == 1)
    }

    @Test func unhandledDataFailsTheTest() throws {
        let tester = MigrationTester(CarelessBlogMigration.self, appID: "com.example.blog")
        #expect(throws: MigrationError.self) {
            try tester.migrate(from: V0_0_1.self, seed: { $0.insert(Post(title: "t", content: "c")) }, verify: { _ in
                Issue.record("verify runs only after a migration that succeeded")
            })
        }
    }

    @Test func theShapeOfAPlan() throws {
        #expect(MigrationTester<BlogMigration>.shapeProblems.isEmpty)
        #expect(MigrationTester<BackwardsBlogMigration>.shapeProblems == [
            "V0_0_1 (0.0.1) does not come after BlogV0_0_2 (0.0.2): list schemas oldest first",
            "stages[0] goes from V0_0_1 to V0_0_2, expected BlogV0_0_2 to V0_0_1",
        ])
        #expect(MigrationTester<StagelessBlogMigration>.shapeProblems == ["0 stages for 1 pair of adjacent schemas: one stage per pair"])
        let error = try #require(throws: MigrationTesterError.self) {
            try MigrationTester(StagelessBlogMigration.self, appID: "com.example.blog").checkPlan()
        }
        #expect(error.description == "StagelessBlogMigration is not a well-formed plan:\n  0 stages for 1 pair of adjacent schemas: one stage per pair")
    }

    @Test func anOldVersionOutsideThePlanIsRefused() throws {
        let error = try #require(throws: MigrationTesterError.self) {
            try MigrationTester(BlogMigration.self, appID: "com.example.blog").migrate(from: V0_0_2.self, seed: { _ in }, verify: { _ in })
        }
        #expect(error.description == "V0_0_2 is not a schema of BlogMigration")
    }
}
