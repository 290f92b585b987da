import Foundation
import Testing
@testable import Vein

/// Random writes of every kind that changes rows (saves of inserts, field changes, links and reorders of
/// every relationship shape, deletes by rule, statements, imports, a refused save, a caught failure in a
/// transaction), on the schema of `ChangeLogReplayTests.manifestText`: what the log's and the backups'
/// property tests replay.
struct RandomWrites {
    let context: ObjectContext
    let runner: QueryRunner
    let store: Store
    let dir: TempDir
    let seed: UInt64
    var rng: SplitMix64

    init(context: ObjectContext, runner: QueryRunner, store: Store, dir: TempDir, seed: UInt64) {
        self.context = context
        self.runner = runner
        self.store = store
        self.dir = dir
        self.seed = seed
        rng = SplitMix64(seed: seed)
    }

    mutating func all(_ model: String) throws -> [ModelObject] { try context.fetch(ObjectFetch(model: model)) }
    mutating func any(_ model: String) throws -> ModelObject? { try all(model).randomElement(using: &rng) }
    mutating func word() -> String { ["alpha", "beta", "gamma", "ümlaut", "日本", ""].randomElement(using: &rng)! + String(Int.random(in: 0..<100, using: &rng)) }

    /// One random write; what it was, or nil when there was nothing to write it on.
    mutating func step(_ step: Int) throws -> String? {
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
            guard let post = try any("Post") else { return nil }
            try post.set("title", .string(word()))
            try post.set("cover", Bool.random(using: &rng) ? .data(Data((0..<Int.random(in: 0...300, using: &rng)).map { UInt8($0 % 251) })) : .null)
            try context.save()
        case 4:
            what += "set a post's tags in a random order"
            guard let post = try any("Post") else { return nil }
            let tags = try all("Tag").shuffled(using: &rng).prefix(Int.random(in: 0...3, using: &rng))
            try post.set("tags", .array(tags.map { .string($0.id) }))
            try context.save()
        case 5:
            what += "move an attachment and reorder a post's attachments"
            guard let attachment = try any("Attachment"), let post = try any("Post") else { return nil }
            try attachment.set("post", .string(post.id))
            let members = try post.related("attachments").shuffled(using: &rng)
            try post.set("attachments", .array(members.map { .string($0.id) }))
            try context.save()
        case 6:
            what += "link related posts and file a post"
            guard let post = try any("Post"), let other = try any("Post") else { return nil }
            try post.set("related", .array([.string(other.id)] + ((try? post.related("related")) ?? []).map { .string($0.id) }))
            if let folder = try any("Folder") { try post.set("folder", .string(folder.id)) }
            try context.save()
        case 7:
            what += "delete a post (its attachments by cascade, tags unlinked)"
            guard let post = try any("Post") else { return nil }
            try context.delete(post)
            try context.save()
        case 8:
            what += "delete a folder (its posts' folder nullified)"
            guard let folder = try any("Folder") else { return nil }
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
            guard let tag = try all("Tag").first(where: { !((try? $0.related("posts").isEmpty) ?? true) }) else { return nil }
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
            var importer = StoreImporter(store: store)
            importer.format = .jsonl
            let path = dir.path("import-\(step).jsonl")
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
        return what
    }

    /// The store's records as `vein export` writes them: equal exports, equal stores.
    static func export(_ store: Store, in dir: TempDir) throws -> String {
        let path = dir.path("export-\(ULID.make()).json")
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        try StoreExporter(store: store).export(to: fd)
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
