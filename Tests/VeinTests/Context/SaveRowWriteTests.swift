import Foundation
import Testing
@testable import Vein

/// A save writes each row once. SQLite 3.15 rewrites a whole row on any update, a blob of megabytes too,
/// so a save that inserted (or updated) a member's row and then updated it again for its position in its
/// owner's list wrote the blob twice: the store grew by twice its size. The position goes with the row's
/// own write (`LinkPlan`): no statement of the save places a member on its own, and a new member's blob
/// grows the store and its WAL once.
@Suite struct SaveRowWriteTests {
    static let manifest = """
        { vein: 1, app: "test.rowwrites", version: "1.0.0", models: {
            Post: { fields: { title: "string" }, relationships: { attachments: { to: "Attachment", many: true, inverse: "post" } } },
            Attachment: { fields: { name: "string", data: "data" }, relationships: { post: { to: "Post", inverse: "attachments" } } } } }
        """
    static let blob = Value.data(Data(repeating: 0x5A, count: 1 << 20))

    /// The statements `save` runs that set a member's position on their own (`RelationshipStorage.placeSQL`).
    func placements(_ context: ObjectContext, save: () throws -> Void) throws -> Int {
        let place = RelationshipStorage.all(in: try ManifestParser.parse(Self.manifest, file: "rowwrites.json5"))
            .first { $0.name == "attachments" }!.placeSQL
        var count = 0
        try context.traceStatements { if $0 == place { count += 1 } }
        defer { try? context.traceStatements(nil) }
        try save()
        return count
    }

    /// The store's and its WAL's bytes.
    func size(_ dir: TempDir) -> Int64 { FileSystem.fileSize(dir.path("s.vein")) + FileSystem.fileSize(dir.path("s.vein") + "-wal") }

    func posts(_ dir: TempDir) throws -> (ObjectContext, String, String) {
        let store = try dir.plaintextStore("s.vein", manifest: try ManifestParser.parse(Self.manifest, file: "rowwrites.json5"))
        let context = ObjectContext(store: store)
        let first = try context.insert("Post", ["title": .string("first")]).id
        let second = try context.insert("Post", ["title": .string("second")]).id
        try context.save()
        return (context, first, second)
    }

    @Test func aNewMembersRowIsWrittenOnce() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let (context, first, _) = try posts(dir)
        let before = size(dir)
        try context.insert("Attachment", ["name": .string("big"), "data": Self.blob, "post": .string(first)])
        #expect(try placements(context) { try context.save() } == 0)
        let grown = size(dir) - before
        #expect(grown < 3 << 19, "the store grew by \(grown) bytes for a blob of \(1 << 20)")
        #expect(try context.object("Post", id: first)!.related("attachments").count == 1)
    }

    @Test func aMovedMembersRowIsWrittenOnce() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let (context, first, second) = try posts(dir)
        let attachment = try context.insert("Attachment", ["name": .string("big"), "data": Self.blob, "post": .string(first)])
        try context.insert("Attachment", ["name": .string("small"), "data": .data(Data()), "post": .string(second)])
        try context.save()
        try attachment.set("post", .string(second))
        #expect(try placements(context) { try context.save() } == 0)
        let reader = ObjectContext(store: try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil)))
        #expect(try reader.object("Post", id: second)!.related("attachments").map { try $0["name"] } == [.string("small"), .string("big")])
        #expect(try reader.object("Post", id: first)!.related("attachments").isEmpty)
    }
}
