import Foundation
import Testing
import struct Vein.ManifestError
import VeinCore

/// `@Model(originalName:)`: a model renamed between two versions keeps its rows in a lightweight migration,
/// as the manifest's model `renamedFrom` does for the CLI.
@Suite struct RenamedModelTests {
    enum NotesV1: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Note.self]
        @Model final class Note {
            var text: String
            init(text: String) { self.text = text }
        }
    }

    enum NotesV2: VersionedSchema {
        static let version = ModelVersion(2, 0, 0)
        static let models: [any PersistentModel.Type] = [Memo.self]
        @Model(originalName: "Note") final class Memo {
            var text: String
            init(text: String) { self.text = text }
        }
    }

    enum Plan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [NotesV1.self, NotesV2.self]
        static let stages: [MigrationStage] = [.lightweight(from: NotesV1.self, to: NotesV2.self)]
    }

    @Test func aRenamedModelKeepsItsRowsInALightweightMigration() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/notes.vein"
        let old = try ModelContainer(for: NotesV1.self, at: path, appID: "com.example.notes", keyProvider: ModelContainerTests.keys(folder))
        old.context.insert(NotesV1.Note(text: "kept"))
        try old.context.save()
        #expect(try NotesV2.manifest(appID: "a").model(named: "Memo")?.renamedFrom == "Note")

        let container = try ModelContainer(NotesV2.self, migration: Plan.self, at: path, appID: "com.example.notes",
                                           keyProvider: ModelContainerTests.keys(folder))
        try container.migrate()
        #expect(try container.context.fetch(NotesV2.Memo.self).map(\.text) == ["kept"])
    }

    enum PostsV1: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Post.self]
        @Model final class Post {
            var title: String
            var headline: String?
            init(title: String) { self.title = title }
        }
    }

    enum PostsV2: VersionedSchema {
        static let version = ModelVersion(2, 0, 0)
        static let models: [any PersistentModel.Type] = [Post.self]
        @Model final class Post {
            @Attribute(originalName: "title") var headline: String?
            init() {}
        }
    }

    /// V1 has both names: the original name is ambiguous, and V1's headline would be kept and the titles lost.
    enum AmbiguousPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [PostsV1.self, PostsV2.self]
        static let stages: [MigrationStage] = [.custom(from: PostsV1.self, to: PostsV2.self, steps: [.drop("Post", "title")])]
    }

    /// `@Attribute(originalName:)` goes through the plan checker the CLI runs: the migration is refused
    /// before it starts, naming the field; before, it ran and dropped every title.
    @Test func anOriginalNameTheOldSchemaAnswersBothWaysIsRefused() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/posts.vein"
        let old = try ModelContainer(for: PostsV1.self, at: path, appID: "com.example.posts", keyProvider: ModelContainerTests.keys(folder))
        old.context.insert(PostsV1.Post(title: "kept"))
        try old.context.save()

        let container = try ModelContainer(PostsV2.self, migration: AmbiguousPlan.self, at: path, appID: "com.example.posts",
                                           keyProvider: ModelContainerTests.keys(folder))
        do {
            _ = try container.migrate()
            Issue.record("the migration ran")
        } catch let error as ManifestError {
            #expect(error.issues.map(\.path) == ["schemas[1].models.Post.fields.headline.renamedFrom"])
            #expect(error.issues.first?.message.hasPrefix("renamedFrom \"title\" is ambiguous: Post at 1.0.0 has both 'title' and 'headline'") == true)
        }
        let reopened = try ModelContainer(for: PostsV1.self, at: path, appID: "com.example.posts", keyProvider: ModelContainerTests.keys(folder))
        #expect(try reopened.context.fetch(PostsV1.Post.self).map(\.title) == ["kept"])
    }
}
