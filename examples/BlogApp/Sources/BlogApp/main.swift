import Foundation
import VeinCore

// The blog, run as its two releases would run on one store:
//   BlogApp v1 STORE          the first release (V0_0_1): creates the store, writes posts, fetches them
//   BlogApp v2 STORE          the second release (V0_0_2): migrates the store, then reads and writes it
//   BlogApp manifest VERSION  the manifest of a schema version, as `vein create --schema` reads it
//   BlogApp plan              the migration plan as a plan file, as `vein migrate check` reads it
// The key is the default provider's: the Secret Service keeps it where `vein` finds it with no flags.

/// The first release: the announcement's code, with a sorted fetch.
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

    let post = V0_0_1.Post(title: "How to use Vein?", content: "It's very easy.")
    post.attachments = [
        V0_0_1.Attachment(name: "setup.swift", fileType: .swift, data: Data(".package(path: \"../vein\")\n".utf8)),
        V0_0_1.Attachment(name: "screenshot.png", fileType: .png, data: Data(repeating: 0x89, count: 1_572_864)),
    ]
    try context.insert(post)  // inserts its attachments too
    try context.insert(V0_0_1.Post(title: "Vein on Linux", content: "The key lives in the Secret Service."))
    try context.insert(V0_0_1.Post(title: "hello, world", content: "A first post."))
    post.content = "What did I tell you?"
    try context.save()

    let posts = try context.fetch(FetchDescriptor(
        predicate: #Predicate<V0_0_1.Post> { $0.title.contains("Vein") },
        sortBy: [SortDescriptor(\.title)]
    ))
    print("posts with \"Vein\" in the title, by title:")
    for post in posts {
        print("  \(post.title): \(post.content)")
        for attachment in post.attachments.sorted(by: { $0.name < $1.name }) {
            // `data` is lazy: read from the store here, on first access.
            print("    \(attachment.name) (\(attachment.fileType.rawValue), \(String(format: "%.2f", attachment.sizeMiB)) MiB, \(attachment.data?.count ?? 0) bytes)")
        }
    }
    print("posts in all: \(try context.fetchCount(FetchDescriptor<V0_0_1.Post>()))")
}

/// The second release: the same store, migrated to V0_0_2 at start.
func runV2(store path: String) throws {
    let container = try ModelContainer(V0_0_2.self, migration: Migration.self, at: path, appID: appID)
    let pending = container.needsMigration
    let report = try container.migrate()
    if pending {
        print("migrated \(path): " + report.stages.map { "\($0.from) -> \($0.to)" }.joined(separator: ", "))
    } else {
        print("\(path) is at \(V0_0_2.version)")
    }
    let context = container.context

    let firstPost = try context.fetch(FetchDescriptor(
        predicate: #Predicate<Post> { $0.title == "How to use Vein?" }
    ))
    for post in firstPost where post.publishedAt == nil {
        post.publishedAt = ISO8601DateFormatter().date(from: "2026-08-17T09:00:00Z")
    }
    try context.save()

    print("posts, by title ignoring case:")
    for post in try context.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.sortTitle)])) {
        let published = post.publishedAt.map { "published \(ISO8601DateFormatter().string(from: $0))" } ?? "draft"
        print("  \(post.title) [\(post.sortTitle)], \(published): \(post.body) (\(post.attachments.count) attachments)")
    }
    // An enum case goes into a #Predicate as a captured value: Foundation's macro does not take `.png`.
    let png = Attachment.FileType.png
    let images = try context.fetch(FetchDescriptor(
        predicate: #Predicate<Attachment> { $0.fileType == png && $0.sizeMiB > 1 },
        sortBy: [SortDescriptor(\.name)]
    ))
    print("PNG attachments over 1 MiB: " + images.map { "\($0.name) of \($0.post?.title ?? "no post")" }.joined(separator: ", "))
}

let usage = """
    usage: BlogApp v1 STORE | v2 STORE | manifest 0.0.1|0.0.2 | plan
    """

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "v1" where arguments.count == 2:
        try runV1(store: arguments[1])
    case "v2" where arguments.count == 2:
        try runV2(store: arguments[1])
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
