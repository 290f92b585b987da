import Foundation
import VeinCore

/// The second version: a post's `content` is now its `body` (a rename: the data moves with it), it gains a
/// publication date (optional: existing posts get nil) and `sortTitle`, the title lowercased, so that a
/// case-insensitive sort runs in SQL (required: the plan says how to fill it). Attachments are unchanged.
enum V0_0_2: VersionedSchema {
    static let version = ModelVersion(0, 0, 2)
    static let models: [any PersistentModel.Type] = [
        Post.self,
        Attachment.self
    ]

    @Model
    final class Post {
        var title: String
        var sortTitle: String

        @Attribute(originalName: "content")
        var body: String

        var publishedAt: Date?

        @Relationship(
            inverse: \Attachment.post,
            deleteRule: .cascade
        )
        var attachments: [Attachment] = []

        init(title: String, body: String) {
            self.title = title
            self.sortTitle = title.lowercased()
            self.body = body
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
            case png
            case jpg
            case gif
            case swift
        }
    }
}

// The app's code speaks of the newest version.
typealias Post = V0_0_2.Post
typealias Attachment = V0_0_2.Attachment
