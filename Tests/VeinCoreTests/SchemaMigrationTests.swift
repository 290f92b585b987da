import Foundation
import Testing
import Vein
import VeinCore

/// `SchemaMigrationPlan` as the CLI's plan file and `ModelContainer.migrate()` through the engine's migrator.
@Suite struct SchemaMigrationTests {
    static let app = "com.example.blog"

    /// A store at 0.0.1 with two posts (one of them spam) and an attachment.
    static func storeAtFirstVersion(_ folder: String) throws -> String {
        let path = "\(folder)/blog.vein"
        let container = try VeinCore.ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: path, appID: app,
                                                    keyProvider: .keyFile("\(folder)/blog.key"))
        let post = Post(title: "How to use Vein?", content: "It's very easy.")
        post.views = 3
        post.attachments = [Attachment(name: "shot.png", fileType: .png, data: Data([1, 2, 3]))]
        container.context.insert(post)
        container.context.insert(Post(title: "spam", content: "buy"))
        try container.context.save()
        return path
    }

    @Test func thePlanIsAPlanFileTheEngineReads() throws {
        let text = try BlogMigration.planText(appID: Self.app)
        let plan = try PlanParser.parse(text, file: "plan.json")
        #expect(plan.versions.map(\.description) == ["0.0.1", "0.0.2"])
        #expect(plan.schemas[0].canonicalText == (try V0_0_1.manifest(appID: Self.app).canonicalText))
        #expect(plan.schemas[1].canonicalText == (try BlogV0_0_2.manifest(appID: Self.app).canonicalText))
        #expect(plan.stages.map { $0.steps.map(\.summary) } == [[
            "delete Post where title == \"spam\"", "map Post: summary = title.lowercased()", "drop Post.views",
        ]])
        #expect(CarelessBlogMigration.stages.first?.steps.isEmpty == true)
    }

    @Test func migrateCarriesTheDataToTheNewVersion() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAtFirstVersion(folder)

        let container = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: path, appID: Self.app,
                                                    keyProvider: .keyFile("\(folder)/blog.key"))
        #expect(container.needsMigration)
        let report = try container.migrate()
        #expect(report.fromVersion == "0.0.1" && report.toVersion == "0.0.2")
        #expect(report.stages.count == 1)
        #expect(!container.needsMigration)

        let posts = try container.context.fetch(BlogV0_0_2.Post.self)
        #expect(posts.map(\.title) == ["How to use Vein?"], "the delete step removed the spam")
        #expect(posts.map(\.body) == ["It's very easy."], "renamed from content")
        #expect(posts.map(\.summary) == ["how to use vein?"], "computed by the map step")
        #expect(posts.first?.attachments.map(\.name) == ["shot.png"])

        // History: the engine's migrator wrote it, so `vein migrate status` sees the stage applied.
        let status = try Migrator(plan: try BlogMigration.enginePlan(appID: Self.app)).status(of: container.store)
        #expect(status.applied == ["0.0.1 → 0.0.2"] && status.pending.isEmpty)

        // A second start: nothing to do.
        let again = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: path, appID: Self.app,
                                                keyProvider: .keyFile("\(folder)/blog.key"))
        #expect(!again.needsMigration)
        #expect(try again.migrate().stages.isEmpty)
    }

    @Test func unhandledDataFailsTheMigrationAndChangesNothing() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAtFirstVersion(folder)
        let keys = KeyFileKeyProvider(path: "\(folder)/blog.key")

        let container = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: CarelessBlogMigration.self, at: path,
                                                    appID: Self.app, keyProvider: keys)
        let error = try #require(throws: MigrationError.self) { try container.migrate() }
        guard case .unhandledData(let stage, let findings) = error else { Issue.record("\(error)"); return }
        #expect(stage == "0.0.1 → 0.0.2")
        #expect(!findings.isEmpty)
        #expect(container.needsMigration)
        // Still whole at 0.0.1.
        let old = try VeinCore.ModelContainer(for: V0_0_1.self, at: path, appID: Self.app, keyProvider: keys)
        #expect(try old.context.fetch(Post.self).map(\.views) == [3, 0])
    }

    /// A new required field filled in `didMigrate` (as a SwiftData migration might): the stage fails first,
    /// and the error says how to fix the plan and why `didMigrate` cannot. Before, the message had no remedy.
    @Test func aRequiredFieldFilledInDidMigrateFailsWithTheFix() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAtFirstVersion(folder)
        let container = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: SummaryInDidMigrate.self, at: path,
                                                    appID: Self.app, keyProvider: .keyFile("\(folder)/blog.key"))
        let error = try #require(throws: MigrationError.self) { try container.migrate() }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.first == "stage 0.0.1 → 0.0.2 would lose or could not carry data; nothing was changed")
        #expect(lines.contains { $0.hasPrefix("  Post.summary: 2 rows get no value for a new required field (") })
        // The stage also drops `views`, whose remedy comes first.
        let fix = try #require(lines.last)
        #expect(fix.hasPrefix("fix: add { drop: { model: \"Post\", field: \"views\" } } to acknowledge losing them"), "\(fix)")
        #expect(fix.hasSuffix("; give the field a default in 0.0.2, make it optional, or add a map step that sets it "
                + "(didMigrate runs after the stage has made the new schema's tables, too late to fill a required field)"), "\(fix)")
        // Without a didMigrate, the fix alone.
        let careless = try #require(throws: MigrationError.self) {
            try VeinCore.ModelContainer(BlogV0_0_2.self, migration: CarelessBlogMigration.self, at: path,
                                        appID: Self.app, keyProvider: .keyFile("\(folder)/blog.key")).migrate()
        }
        #expect(careless.description.split(separator: "\n").last?
                .hasSuffix("; give the field a default in 0.0.2, make it optional, or add a map step that sets it") == true)
    }

    @Test func aPlanWithoutAStagePerPairIsRefusedAsTheCLIRefusesIt() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAtFirstVersion(folder)
        let container = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: StagelessBlogMigration.self, at: path,
                                                    appID: Self.app, keyProvider: .keyFile("\(folder)/blog.key"))
        let error = try #require(throws: ManifestError.self) { try container.migrate() }
        #expect(error.description.contains("expected 1 stage (one per pair of adjacent schemas), found 0"), "\(error)")
    }

    @Test func theContainersSchemaIsThePlansLast() throws {
        let error = try #require(throws: ModelContainerError.self) {
            try VeinCore.ModelContainer(V0_0_1.self, migration: BlogMigration.self, at: nil, appID: Self.app)
        }
        #expect(error.description == "V0_0_1 is not the last schema of BlogMigration: a container opens the plan's newest version")
    }

    @Test func aStoreAtAVersionThePlanDoesNotListIsRefused() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAtFirstVersion(folder)
        let error = try #require(throws: ModelContainerError.self) {
            try VeinCore.ModelContainer(V0_0_2.self, migration: NotesOnly.self, at: path, appID: Self.app,
                                        keyProvider: .keyFile("\(folder)/blog.key"))
        }
        #expect(error.description == "\(path) is at schema 0.0.1, the app declares 0.0.2: the migration plan does not list 0.0.1")
    }

    @Test func willMigrateAndDidMigrateRunInTheMigrationsTransaction() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAtFirstVersion(folder)
        let container = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: HookedBlogMigration.self, at: path,
                                                    appID: Self.app, keyProvider: .keyFile("\(folder)/blog.key"))
        try container.migrate()
        let posts = try container.context.fetch(BlogV0_0_2.Post.self)
        #expect(posts.map(\.summary) == ["How to use Vein? (1 attachment)"])
    }

    @Test func aThrowingDidMigrateRollsEverythingBack() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAtFirstVersion(folder)
        let keys = KeyFileKeyProvider(path: "\(folder)/blog.key")
        let container = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: FailingHookBlogMigration.self, at: path,
                                                    appID: Self.app, keyProvider: keys)
        #expect(throws: HookFailure.self) { try container.migrate() }
        let old = try VeinCore.ModelContainer(for: V0_0_1.self, at: path, appID: Self.app, keyProvider: keys)
        #expect(try old.context.fetch(Post.self).map(\.title) == ["How to use Vein?", "spam"])
    }

    /// A new store is at the plan's last version, so nothing is pending; a plan the CLI would refuse is still
    /// found at the first start, not at the first release that needs it.
    @Test func aBrokenPlanIsFoundWhenNothingIsPending() throws {
        let container = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: StagelessBlogMigration.self, at: nil, appID: Self.app)
        #expect(!container.needsMigration)
        let error = try #require(throws: ManifestError.self) { try container.migrate() }
        #expect(error.description.contains("expected 1 stage (one per pair of adjacent schemas), found 0"), "\(error)")
        let fine = try VeinCore.ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: nil, appID: Self.app)
        #expect(try fine.migrate().stages.isEmpty)
    }
}
