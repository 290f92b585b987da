import CVeinMemory
import Foundation
import Vein
import VeinCore

// Memory on data shaped as an app's (VEIN_BENCH_SHAPED_MEMORY=1; bench/run prints it): the blog of
// examples/blog.json5, posts of 300 characters with two attachments each, through VeinCore's `@Model`
// classes. For each size: the typed fetch of the posts held, then with every post's attachments read
// (the relationship's instances held too), and a context holding that many new posts, each with its
// attachments, pending (not saved); every post deleted with its attachments, pending, and the save of
// those deletes (its wall-clock time). Malloc's bytes in use, after less before.

@Model
final class Post {
    var title: String
    var content: String
    var views: Int = 0
    var publishedAt: Date?

    @Relationship(inverse: \Attachment.post, deleteRule: .cascade)
    var attachments: [Attachment] = []

    init(title: String, content: String) {
        self.title = title
        self.content = content
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

    init(name: String, fileType: FileType, sizeMiB: Double) {
        self.name = name
        self.fileType = fileType
        self.sizeMiB = sizeMiB
    }

    enum FileType: String, RawRepresentablePersistable {
        case png, jpg, gif, swift
    }
}

func measureShapedMemory(posts counts: [Int]) throws {
    let manifest = try ManifestParser.parse(String(contentsOfFile: "examples/blog.json5", encoding: .utf8), file: "blog.json5")
    let content = String(String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 6).prefix(300))
    func newPost(_ n: Int) -> Post {
        let post = Post(title: "Post number \(n)", content: content)
        post.views = n
        post.publishedAt = Date(timeIntervalSince1970: 1_700_000_000 + Double(n))
        post.attachments = [Attachment(name: "image-\(n).png", fileType: .png, sizeMiB: 1.5),
                            Attachment(name: "source-\(n).swift", fileType: .swift, sizeMiB: 0.1)]
        return post
    }
    func report(_ what: String, _ posts: Int, _ bytes: Int) {
        print("vein shaped-memory \(what) \(posts) \(String(format: "%.1f", Double(bytes) / 1_048_576)) \(bytes / posts)")
    }
    for count in counts {
        let path = directory + "/shaped-\(count).vein"
        FileSystem.removeDatabaseFiles(path)
        _ = try StoreCreator.create(at: path, manifest: manifest, protection: .encrypted(keys))
        let store = try Store.open(path, keys: keys)
        do {
            let context = typedContext(store)
            for n in 0..<count {
                context.insert(newPost(n))
                if n % 10_000 == 9_999 { try context.save() }
            }
            try context.save()
        }
        do {
            let context = typedContext(store)
            let before = vein_heap_in_use()
            let posts = try context.fetch(VeinCore.FetchDescriptor<Post>())
            precondition(posts.count == count)
            report("typed-fetch-posts", count, Int(vein_heap_in_use() - before))
            var attachments = 0
            for post in posts { attachments += post.attachments.count }
            precondition(attachments == 2 * count)
            report("with-attachments-read", count, Int(vein_heap_in_use() - before))
            withExtendedLifetime(posts) {}
        }
        do {
            let context = typedContext(store)
            let before = vein_heap_in_use()
            var pending: [Post] = []
            for n in 0..<count {
                let post = newPost(count + n)
                context.insert(post)
                pending.append(post)
            }
            report("pending-inserts", count, Int(vein_heap_in_use() - before))
            withExtendedLifetime(pending) {}
        }
        do {
            // Every post deleted (its attachments by the cascade), pending: what the context holds for
            // them until the save, compared with the row above it that read every post's attachments.
            let context = typedContext(store)
            let before = vein_heap_in_use()
            for post in try context.fetch(VeinCore.FetchDescriptor<Post>()) { context.delete(post) }
            report("pending-deletes", count, Int(vein_heap_in_use() - before))
            let start = DispatchTime.now().uptimeNanoseconds
            try context.save()
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
            print("vein shaped-save pending-deletes \(count) \(String(format: "%.1f", milliseconds))")
            let left = try context.fetchCount(VeinCore.FetchDescriptor<Attachment>())
            precondition(left == 0, "\(left) attachments left after the deletes")
        }
        FileSystem.removeDatabaseFiles(path)
    }
}
