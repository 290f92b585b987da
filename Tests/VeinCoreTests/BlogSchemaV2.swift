import Foundation
import VeinCore

/// The blog's second version: `content` renamed `body`, `views` removed, a required `summary` added.
enum BlogV0_0_2: VersionedSchema {
    static let version = ModelVersion(0, 0, 2)
    static let models: [any PersistentModel.Type] = [Post.self, Attachment.self]

    @Model
    final class Post {
        var title: String
        @Attribute(originalName: "content")
        var body: String
        var summary: String
        var publishedAt: Date?

        @Relationship(inverse: \Attachment.post, deleteRule: .cascade)
        var attachments: [Attachment] = []

        init(title: String, body: String, summary: String) {
            self.title = title
            self.body = body
            self.summary = summary
        }
    }

    @Model
    final class Attachment {
        @Relationship
        var post: Post?

        var name: String
        var fileType: FileType
        var sizeMiB: Double

        @LazyField
        var data: Data?

        init(name: String, fileType: FileType, data: Data) {
            self.name = name
            self.fileType = fileType
            self.sizeMiB = Double(data.count) / 1024 / 1024
            self.data = data
        }

        enum FileType: String, RawRepresentablePersistable {
            case png, jpg, gif, swift
        }
    }
}

/// The blog's history as the app ships it: each step one line.
enum BlogMigration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_1.self, BlogV0_0_2.self]
    static let stages: [MigrationStage] = [
        .custom(from: V0_0_1.self, to: BlogV0_0_2.self, steps: [
            .delete(V0_0_1.Post.self, where: "title == \"spam\""),
            .map(BlogV0_0_2.Post.self, ["summary": "title.lowercased()"]),
            .drop(V0_0_1.Post.self, "views"),
        ]),
    ]
}

/// The same versions with nothing said about the data `views` and `summary` need.
enum CarelessBlogMigration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_1.self, BlogV0_0_2.self]
    static let stages: [MigrationStage] = [.lightweight(from: V0_0_1.self, to: BlogV0_0_2.self)]
}

/// The new required `summary` filled by `didMigrate`, which runs only after the stage gave it a value.
enum SummaryInDidMigrate: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_1.self, BlogV0_0_2.self]
    static let stages: [MigrationStage] = [
        .custom(from: V0_0_1.self, to: BlogV0_0_2.self, didMigrate: { context in
            for post in try context.fetch(BlogV0_0_2.Post.self) { post.summary = String(post.body.prefix(20)) }
        }),
    ]
}

/// Two versions and no stage between them.
enum StagelessBlogMigration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_1.self, BlogV0_0_2.self]
    static let stages: [MigrationStage] = []
}

/// Only the first version (as the announcement's app starts).
enum FirstBlogMigration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_1.self]
    static let stages: [MigrationStage] = []
}

/// A plan of another app history that does not list the blog's 0.0.1.
enum NotesOnly: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_2.self]
    static let stages: [MigrationStage] = []
}

/// Versions listed newest first, and a stage that names the wrong pair.
enum BackwardsBlogMigration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [BlogV0_0_2.self, V0_0_1.self]
    static let stages: [MigrationStage] = [.lightweight(from: V0_0_1.self, to: V0_0_2.self)]
}

/// Swift code around the stage: spam deleted through typed old objects, summaries finished on new ones.
enum HookedBlogMigration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_1.self, BlogV0_0_2.self]
    static let stages: [MigrationStage] = [
        .custom(from: V0_0_1.self, to: BlogV0_0_2.self,
                steps: [.map(BlogV0_0_2.Post.self, ["summary": "title"]), .drop(V0_0_1.Post.self, "views")],
                willMigrate: { context in
                    for post in try context.fetch(V0_0_1.Post.self) where post.title == "spam" { context.delete(post) }
                },
                didMigrate: { context in
                    for post in try context.fetch(BlogV0_0_2.Post.self) { post.summary += " (\(post.attachments.count) attachment)" }
                }),
    ]
}

struct HookFailure: Error {}

/// A didMigrate that writes and then throws: the whole migration rolls back.
enum FailingHookBlogMigration: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [V0_0_1.self, BlogV0_0_2.self]
    static let stages: [MigrationStage] = [
        .custom(from: V0_0_1.self, to: BlogV0_0_2.self,
                steps: [.map(BlogV0_0_2.Post.self, ["summary": "title"]), .drop(V0_0_1.Post.self, "views")],
                didMigrate: { context in
                    for post in try context.fetch(BlogV0_0_2.Post.self) { context.delete(post) }
                    try context.save()
                    throw HookFailure()
                }),
    ]
}
