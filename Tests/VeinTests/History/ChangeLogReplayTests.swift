import Foundation
import Testing
@testable import Vein

/// The change log's one promise (docs/history.md#replay): replaying a commit's records onto the state
/// before it gives the state after it. Checked as a property over random sequences of what writes rows
/// (saves of inserts, field changes, links and reorders of every relationship shape, deletes by rule,
/// statements, imports, failed saves and rolled-back savepoints): after every step the store and a
/// mirror that only ever received the replayed log export the same bytes.
@Suite struct ChangeLogReplayTests {
    static let manifestText = """
        { vein: 1, app: "test.history", version: "1.0.0", models: {
            Post: { fields: { title: "string", views: "int", score: "double?", slug: "string? unique", cover: "data?" },
                    relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" },
                                     tags: { to: "Tag", many: true, inverse: "posts" }, related: { to: "Post", many: true },
                                     folder: { to: "Folder", inverse: "items" } } },
            Attachment: { fields: { name: "string", sizeMiB: "double" }, relationships: { post: { to: "Post", inverse: "attachments" } } },
            Tag: { fields: { name: "string" }, relationships: { posts: { to: "Post", many: true, inverse: "tags", deleteRule: "deny" } } },
            Folder: { fields: { name: "string" }, relationships: { items: { to: "Post", many: true, inverse: "folder" } } },
        } }
        """

    final class Fixture {
        let dir: TempDir
        let manifest: SchemaManifest
        let store: Store
        let mirror: Store
        var replayedThrough: Int64 = 0

        init() throws {
            dir = try TempDir()
            manifest = try ManifestParser.parse(ChangeLogReplayTests.manifestText, file: "history.json5")
            _ = try StoreCreator.create(at: dir.path("s.vein"), manifest: manifest, protection: .plaintext, keepsChangeLog: true)
            _ = try StoreCreator.create(at: dir.path("m.vein"), manifest: manifest, protection: .plaintext)
            store = try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))
            mirror = try Store.open(dir.path("m.vein"), keys: KeyOptions(keyring: nil))
        }

        deinit { dir.cleanUp() }

        /// Replays what the log gained since the last call onto the mirror; returns those transactions.
        @discardableResult
        func replayNew() throws -> [LoggedTransaction] {
            var reader = ChangeLogReader()
            reader.afterToken = replayedThrough
            let new = try reader.transactions(in: store.database)
            try mirror.database.transaction {
                for transaction in new { try ChangeReplayer(database: mirror.database).apply(transaction) }
            }
            replayedThrough = new.last?.token ?? replayedThrough
            return new
        }

        func export(_ store: Store) throws -> String {
            let path = dir.path("export-\(ULID.make()).json")
            let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            defer { close(fd) }
            try StoreExporter(store: store).export(to: fd)
            return try String(contentsOfFile: path, encoding: .utf8)
        }

        func expectMirrorMatches(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let new = try replayNew()
            try #require(!new.contains { $0.kind == .outside }, "\(step): the log saw writes it did not record", sourceLocation: sourceLocation)
            let a = try export(store).split(separator: "\n"), b = try export(mirror).split(separator: "\n")
            let differing = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
                .map { "line \($0.offset + 1):\n  store:  \($0.element.0)\n  mirror: \($0.element.1)" } ?? "lengths \(a.count), \(b.count)"
            try #require(a == b, "\(step): the replayed log differs from the store at \(differing)", sourceLocation: sourceLocation)
            let report = try StoreVerifier.verify(store)
            try #require(report.isClean, "\(step): \(report)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func replayingTheLogGivesTheStoreItsState(seed: UInt64) throws {
        let f = try Fixture()
        var rng = SplitMix64(seed: seed)
        let context = ObjectContext(store: f.store)
        let runner = QueryRunner(context: context)

        func all(_ model: String) throws -> [ModelObject] { try context.fetch(ObjectFetch(model: model)) }
        func any(_ model: String) throws -> ModelObject? { try all(model).randomElement(using: &rng) }
        func word() -> String { ["alpha", "beta", "gamma", "ümlaut", "日本", ""].randomElement(using: &rng)! + String(Int.random(in: 0..<100, using: &rng)) }

        for step in 0..<60 {
            let choice = Int.random(in: 0..<14, using: &rng)
            var what = "step \(step) (seed \(seed)): "
            switch choice {
            case 0, 1:
                what += "insert posts with attachments"
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let post = try context.insert("Post", ["title": .string(word()), "views": .int(Int64.random(in: -5...5, using: &rng)),
                                                           "score": Bool.random(using: &rng) ? .double(Double.random(in: -1...1, using: &rng)) : .null])
                    for _ in 0..<Int.random(in: 0...2, using: &rng) {
                        _ = try context.insert("Attachment", ["name": .string(word()), "sizeMiB": .double(Double(Int.random(in: 0...4, using: &rng))),
                                                              "post": .string(post.id)])
                    }
                }
                try context.save()
            case 2:
                what += "insert tags and a folder"
                _ = try context.insert("Tag", ["name": .string(word())])
                _ = try context.insert("Folder", ["name": .string(word())])
                try context.save()
            case 3:
                what += "change fields"
                guard let post = try any("Post") else { continue }
                try post.set("title", .string(word()))
                try post.set("cover", Bool.random(using: &rng) ? .data(Data((0..<Int.random(in: 0...300, using: &rng)).map { UInt8($0 % 251) })) : .null)
                try context.save()
            case 4:
                what += "set a post's tags in a random order"
                guard let post = try any("Post") else { continue }
                let tags = try all("Tag").shuffled(using: &rng).prefix(Int.random(in: 0...3, using: &rng))
                try post.set("tags", .array(tags.map { .string($0.id) }))
                try context.save()
            case 5:
                what += "move an attachment and reorder a post's attachments"
                guard let attachment = try any("Attachment"), let post = try any("Post") else { continue }
                try attachment.set("post", .string(post.id))
                let members = try post.related("attachments").shuffled(using: &rng)
                try post.set("attachments", .array(members.map { .string($0.id) }))
                try context.save()
            case 6:
                what += "link related posts and file a post"
                guard let post = try any("Post"), let other = try any("Post") else { continue }
                try post.set("related", .array([.string(other.id)] + ((try? post.related("related")) ?? []).map { .string($0.id) }))
                if let folder = try any("Folder") { try post.set("folder", .string(folder.id)) }
                try context.save()
            case 7:
                what += "delete a post (its attachments by cascade, tags unlinked)"
                guard let post = try any("Post") else { continue }
                try context.delete(post)
                try context.save()
            case 8:
                what += "delete a folder (its posts' folder nullified)"
                guard let folder = try any("Folder") else { continue }
                try context.delete(folder)
                try context.save()
            case 9:
                what += "a statement that updates many rows"
                _ = try runner.run("update Post where views > 0 set views = views - 1, score = nil", save: true)
            case 10:
                what += "a statement that deletes by a condition"
                _ = try runner.run("delete Attachment where sizeMiB > 2", save: true)
            case 11:
                what += "a save a deny rule refuses"
                guard let tag = try all("Tag").first(where: { !((try? $0.related("posts").isEmpty) ?? true) }) else { continue }
                #expect(throws: (any Error).self) {
                    try context.delete(tag)
                    try context.save()
                }
                context.rollback()
            case 12:
                what += "a transaction whose second save fails on a unique value and is caught"
                let slug = "slug-\(step)"
                try context.transaction {
                    _ = try context.insert("Post", ["title": .string("kept"), "views": .int(0), "slug": .string(slug)])
                    try context.save()
                    _ = try context.insert("Post", ["title": .string("refused"), "views": .int(0), "slug": .string(slug)])
                    #expect(throws: (any Error).self) { try context.save() }
                    context.rollback()
                }
            default:
                what += "an import"
                var importer = StoreImporter(store: f.store)
                importer.format = .jsonl
                let path = f.dir.path("import-\(step).jsonl")
                let tag = ULID.make().description, post = ULID.make().description, attachment = ULID.make().description
                let attached = try any("Post")?.id
                try """
                    {"vein":2,"app":"test.history","schemaVersion":"1.0.0"}
                    {"model":"Tag","_id":"\(tag)","name":"imported \(step)","posts":["\(post)"]}
                    {"model":"Post","_id":"\(post)","title":"imported","views":1,"tags":["\(tag)"],"attachments":["\(attachment)"],"related":[\(attached.map { "\"\($0)\"" } ?? "")]}
                    {"model":"Attachment","_id":"\(attachment)","name":"i","sizeMiB":1,"post":"\(post)"}

                    """.write(toFile: path, atomically: true, encoding: .utf8)
                let fd = open(path, O_RDONLY)
                defer { close(fd) }
                _ = try importer.importRecords(from: fd, file: "in.jsonl")
            }
            try f.expectMirrorMatches(what)
        }
        let transactions = try ChangeLogReader().transactions(in: f.store.database)
        #expect(transactions.count > 20, "most steps commit")
        #expect(transactions.map(\.token) == transactions.map(\.token).sorted())
        #expect(zip(transactions, transactions.dropFirst()).allSatisfy { $0.clock < $1.clock })
    }
}
