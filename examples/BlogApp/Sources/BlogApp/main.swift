import Foundation
import Observation
import VeinCore

// The blog, run as its two releases would run on one store:
//   BlogApp v1 STORE            the first release (V0_0_1): creates the store, writes posts, fetches them
//   BlogApp v2 STORE            the second release (V0_0_2): migrates the store, then reads and writes it
//   BlogApp delete STORE TITLE  the second release deletes the post titled TITLE (its attachments too)
//   BlogApp manifest VERSION    the manifest of a schema version, as `vein create --schema` reads it
//   BlogApp plan                the migration plan as a plan file, as `vein migrate check` reads it
// The key is the default provider's: the Secret Service keeps it where `vein` finds it with no flags.

/// The first release: the announcement's code, a live count of posts, and a relationship query.
func runV1(store path: String) throws {
    let existed = FileManager.default.fileExists(atPath: path)
    let container = try ModelContainer(
        V0_0_1.self,                  // the schema of this release
        migration: MigrationV1.self,  // every version shipped so far
        at: path,                     // or nil for in memory
        appID: appID                  // names the key in the keyring
    )
    try container.migrate()
    let context = container.context
    print(existed ? "opened \(path)" : "created \(path) (its key is in the keyring)")

    // Every post, kept current by the store: what a UI shows (SwiftUI's @Query), with no UI here.
    let allPosts = LiveQuery<V0_0_1.Post>(in: context)
    let before = allPosts.results.count
    print("posts (live query): \(before)")
    let refreshed = DispatchSemaphore(value: 0)
    withObservationTracking { _ = allPosts.results } onChange: { refreshed.signal() }

    let post = V0_0_1.Post(title: "How to use Vein?", content: "It's very easy.")
    post.attachments = [
        V0_0_1.Attachment(name: "setup.swift", fileType: .swift, data: Data(".package(path: \"../vein\")\n".utf8)),
        V0_0_1.Attachment(name: "screenshot.png", fileType: .png, data: Data(repeating: 0x89, count: 1_572_864)),
    ]
    context.insert(post)  // inserts its attachments too
    context.insert(V0_0_1.Post(title: "Vein on Linux", content: "The key lives in the Secret Service."))
    context.insert(V0_0_1.Post(title: "hello, world", content: "A first post."))
    post.content = "What did I tell you?"
    try context.save()

    // The live query refreshes on its own queue after the save. Observation calls onChange as the change
    // begins (a UI schedules a render then); the new results are in place a moment later.
    _ = refreshed.wait(timeout: .now() + 10)
    let deadline = Date().addingTimeInterval(10)
    while allPosts.results.count == before, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
    print("posts (live query) after the save: \(allPosts.results.count)")

    let posts = try container.context.fetchAll(#Predicate<V0_0_1.Post> { post in
        post.title.contains("Vein")
    })  // in creation order: ids are ULIDs
    print("posts with \"Vein\" in the title:")
    for post in posts {
        print("  \(post.title): \(post.content)")
        // The relationship queried in SQL, sorted there; `data` is lazy: read from the store on first access.
        for attachment in try post.attachments(sort: [SortDescriptor(\.name)]) {
            print("    \(attachment.name) (\(attachment.fileType.rawValue), \(String(format: "%.2f", attachment.sizeMiB)) MiB, \(attachment.data?.count ?? 0) bytes)")
        }
    }
}

/// The second release: the same store, migrated to V0_0_2 at start.
func runV2(store path: String) throws {
    let context = try openV2(store: path, sayWhenCurrent: true).context

    if let first = try Post.fetchOne(where: #Predicate { $0.title == "How to use Vein?" }, in: context), first.publishedAt == nil {
        first.publishedAt = ISO8601DateFormatter().date(from: "2026-08-17T09:00:00Z")
        try context.save()
    }

    print("posts, by title ignoring case:")
    for post in try Post.fetch(sort: [SortDescriptor(\.sortTitle)], in: context) {
        let published = post.publishedAt.map { "published \(ISO8601DateFormatter().string(from: $0))" } ?? "draft"
        print("  \(post.title) [\(post.sortTitle)], \(published): \(post.body) (\(post.attachments.count) attachments)")
        let large = try post.attachments(where: #Predicate { $0.sizeMiB > 1 }, sort: [SortDescriptor(\.name)])
        if !large.isEmpty { print("    over 1 MiB: " + large.map(\.name).joined(separator: ", ")) }
    }
    // An enum case goes into a #Predicate as a captured value: Foundation's macro does not take `.png`.
    let png = Attachment.FileType.png
    let images = try Attachment.fetch(where: #Predicate { $0.fileType == png }, sort: [SortDescriptor(\.name)], in: context)
    print("PNG attachments: " + images.map { "\($0.name) of \($0.post?.title ?? "no post")" }.joined(separator: ", "))
}

/// `BlogApp delete`: the second release deletes a post.
func runDelete(store path: String, title: String) throws {
    let context = try openV2(store: path, sayWhenCurrent: false).context
    guard let attachments = try deletePost(titled: title, in: context) else {
        print("no post titled \"\(title)\"")
        return
    }
    print("deleted \"\(title)\" (\(attachments) attachments with it); left: \(try context.fetchCount(FetchDescriptor<Post>())) posts, "
        + "\(try context.fetchCount(FetchDescriptor<Attachment>())) attachments")
}

/// Deletes the post titled `title` and saves; the relationship's delete rule (cascade) deletes its
/// attachments too. Returns how many attachments it had, or nil when no post has that title.
func deletePost(titled title: String, in context: ModelContext) throws -> Int? {
    guard let post = try Post.fetchOne(where: #Predicate { $0.title == title }, in: context) else { return nil }
    let attachments = post.attachments.count
    try post.delete()        // context.delete(post), in the post's own context
    try context.save()
    return attachments
}

/// The second release's container, the store migrated to its schema.
func openV2(store path: String, sayWhenCurrent: Bool) throws -> ModelContainer {
    let container = try ModelContainer(V0_0_2.self, migration: Migration.self, at: path, appID: appID)
    let pending = container.needsMigration
    let report = try container.migrate()
    if pending {
        print("migrated \(path): " + report.stages.map { "\($0.from) -> \($0.to)" }.joined(separator: ", "))
    } else if sayWhenCurrent {
        print("\(path) is at \(V0_0_2.version)")
    }
    return container
}

let usage = """
    usage: BlogApp v1 STORE | v2 STORE | delete STORE TITLE | manifest 0.0.1|0.0.2 | plan
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "v1" where arguments.count == 2:
        try runV1(store: arguments[1])
    case "v2" where arguments.count == 2:
        try runV2(store: arguments[1])
    case "delete" where arguments.count == 3:
        try runDelete(store: arguments[1], title: arguments[2])
    case "manifest" where arguments.count == 2:
        guard let schema = Migration.schemas.first(where: { $0.version.description == arguments[1] }) else {
            throw BlogAppError.noSuchVersion(arguments[1])
        }
        print(try schema.manifest(appID: appID).canonicalText)
    case "plan" where arguments.count == 1:
        print(try Migration.planText(appID: appID), terminator: "")
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}

enum BlogAppError: Error, CustomStringConvertible {
    case noSuchVersion(String)
    var description: String {
        switch self {
        case .noSuchVersion(let version):
            "no schema version \(version) (the plan has " + Migration.schemas.map { "\($0.version)" }.joined(separator: ", ") + ")"
        }
    }
}
