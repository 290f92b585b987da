import Foundation
import Testing
@testable import Vein

/// A save checks, after its writes and inside its transaction, that every id it wrote names a row: a
/// target another connection deleted after this context linked to it is refused, and nothing is written
/// (ARCHITECTURE.md I3). Linking checks the target when the link is made; only the save can see a delete
/// committed between the two.
@Suite struct SaveReferenceCheckTests {
    /// Deletes the row `id` of `model` through a context of its own, saved.
    func deleteElsewhere(_ f: ContextFixture, _ model: String, _ id: String) throws {
        let other = try f.context()
        try other.delete(try #require(try other.object(model, id: id)))
        try other.save()
    }

    @Test func aNewObjectsToOneTargetDeletedBeforeTheSave() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let post = try setup.insert("Post", ["title": .string("p"), "content": .string("c")])
        let kept = try setup.insert("Post", ["title": .string("kept"), "content": .string("c")])
        try setup.save()
        let context = try f.context()
        try context.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(1), "post": .string(kept.id)])
        try context.insert("Attachment", ["name": .string("b.png"), "sizeMiB": .double(1), "post": .string(post.id)])
        try deleteElsewhere(f, "Post", post.id)
        #expect(throws: ContextError.danglingReference(model: "Attachment", field: "post", id: post.id)) { try context.save() }
        #expect(context.hasChanges, "the changes stay pending")
        #expect(try f.context().fetchCount(ObjectFetch(model: "Attachment")) == 0, "nothing of the refused save is written")
        #expect(try f.verify() == [])
    }

    @Test func aChangedToOneTargetDeletedBeforeTheSave() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let first = try setup.insert("Post", ["title": .string("first"), "content": .string("c")])
        let second = try setup.insert("Post", ["title": .string("second"), "content": .string("c")])
        let attachment = try setup.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(1), "post": .string(first.id)])
        try setup.save()
        let context = try f.context()
        let moved = try #require(try context.object("Attachment", id: attachment.id))
        try moved.set("post", .string(second.id))
        try deleteElsewhere(f, "Post", second.id)
        #expect(throws: ContextError.danglingReference(model: "Attachment", field: "post", id: second.id)) { try context.save() }
        let stored = try #require(try f.context().object("Attachment", id: attachment.id))
        #expect(try stored["post"] == .string(first.id), "the row keeps its stored owner")
    }

    @Test func aLinkTableMemberDeletedBeforeTheSave() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let tag = try setup.insert("Tag", ["name": .string("swift")])
        let other = try setup.insert("Tag", ["name": .string("linux")])
        try setup.save()
        let context = try f.context()
        try context.insert("Post", ["title": .string("p"), "content": .string("c"), "tags": .array([.string(other.id), .string(tag.id)])])
        try deleteElsewhere(f, "Tag", tag.id)
        #expect(throws: ContextError.danglingReference(model: "Post", field: "tags", id: tag.id)) { try context.save() }
        #expect(try f.context().fetchCount(ObjectFetch(model: "Post")) == 0)

        // Added one at a time to a stored post's list: the same.
        context.rollback()
        let post = try context.insert("Post", ["title": .string("q"), "content": .string("c")])
        try context.save()
        let third = try setup.insert("Tag", ["name": .string("gone")])
        try setup.save()
        let tags = try #require(try context.object("Tag", id: third.id))
        try tags.set("posts", .array([.string(post.id)]))
        try deleteElsewhere(f, "Tag", third.id)
        #expect(throws: ContextError.danglingReference(model: "Post", field: "tags", id: third.id)) { try context.save() }
        #expect(try f.verify() == [])
    }

    @Test func aSaveWithoutDeletedTargetsWritesItsLinks() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let post = try setup.insert("Post", ["title": .string("p"), "content": .string("c")])
        let tag = try setup.insert("Tag", ["name": .string("swift")])
        try setup.save()
        let context = try f.context()
        for n in 0..<3 { try context.insert("Attachment", ["name": .string("\(n).png"), "sizeMiB": .double(1), "post": .string(post.id)]) }
        try context.insert("Post", ["title": .string("q"), "content": .string("c"), "tags": .array([.string(tag.id)])])
        try context.save()
        let reader = try f.context()
        #expect(try reader.object("Post", id: post.id)!.related("attachments").map { try $0["name"] } == ["0.png", "1.png", "2.png"].map(Value.string))
        #expect(try reader.object("Tag", id: tag.id)!.related("posts").count == 1)
        #expect(try f.verify() == [])
    }
}

/// A save that writes an id and, by a delete rule run in the store, deletes that row in the same save: the
/// rule's nullify clears what was written, and the save stands (the reference check counts the save's
/// deletes). Here the rule reaches a row the context's copy of the list does not show: another context
/// added it to the folder after this one read the folder's items.
@Suite struct SaveReferenceToARowTheSaveDeletesTests {
    static let manifest = """
        { vein: 1, app: "test.deleted.target", version: "1.0.0", models: {
            Folder: { fields: { name: "string" }, relationships: { items: { to: "Item", many: true, inverse: "folder", deleteRule: "cascade" } } },
            Item: { fields: { name: "string" }, relationships: { folder: { to: "Folder", inverse: "items" },
                                                                notes: { to: "Note", many: true, inverse: "item" },
                                                                tag: { to: "Tag", inverse: "tagged" } } },
            Note: { fields: { text: "string" }, relationships: { item: { to: "Item", inverse: "notes" } } },
            Tag: { fields: { name: "string" }, relationships: { tagged: { to: "Item", many: true, inverse: "tag" } } } } }
        """

    func open(_ dir: TempDir) throws -> ObjectContext {
        ObjectContext(store: try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil)))
    }

    @Test func aRuleDeletesWhatTheSaveLinkedTo() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let store = try dir.plaintextStore("s.vein", manifest: try ManifestParser.parse(Self.manifest, file: "deleted-target.json5"))
        let setup = ObjectContext(store: store)
        let folder = try setup.insert("Folder", ["name": .string("f")]).id
        try setup.insert("Item", ["name": .string("first"), "folder": .string(folder)])
        try setup.save()

        let context = try open(dir)
        #expect(try context.object("Folder", id: folder)!.related("items").count == 1)
        let other = try open(dir)
        let added = try other.insert("Item", ["name": .string("added elsewhere"), "folder": .string(folder)]).id
        try other.save()

        let note = try context.insert("Note", ["text": .string("n"), "item": .string(added)])
        try context.delete(try #require(try context.object("Folder", id: folder)))
        #expect(try note["item"] == .string(added), "the context's list of the folder did not show the item")
        try context.save()

        let reader = try open(dir)
        #expect(try reader.object("Item", id: added) == nil, "the store's cascade took it")
        let stored = try #require(try reader.object("Note", id: note.id))
        #expect(try stored["item"] == .null, "the rule's nullify cleared the id the save wrote")
        #expect(try StoreVerifier.verify(try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))).checks.flatMap(\.problems) == [])
    }

    /// The row that holds the written id goes with the save: what it named no longer matters, even a row
    /// another context deleted meanwhile.
    @Test func aRuleDeletesTheRowThatHoldsTheWrittenID() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let store = try dir.plaintextStore("s.vein", manifest: try ManifestParser.parse(Self.manifest, file: "deleted-target.json5"))
        let setup = ObjectContext(store: store)
        let folder = try setup.insert("Folder", ["name": .string("f")]).id
        let tag = try setup.insert("Tag", ["name": .string("t")]).id
        try setup.save()

        let context = try open(dir)
        #expect(try context.object("Folder", id: folder)!.related("items").isEmpty)
        let other = try open(dir)
        let item = try other.insert("Item", ["name": .string("added elsewhere"), "folder": .string(folder)]).id
        try other.save()
        try context.object("Item", id: item)!.set("tag", .string(tag))
        let deleter = try open(dir)
        try deleter.delete(try #require(try deleter.object("Tag", id: tag)))
        try deleter.save()

        try context.delete(try #require(try context.object("Folder", id: folder)))
        try context.save()
        let reader = try open(dir)
        #expect(try reader.object("Item", id: item) == nil, "the store's cascade took the item, and the id it was given")
        #expect(try StoreVerifier.verify(try Store.open(dir.path("s.vein"), keys: KeyOptions(keyring: nil))).checks.flatMap(\.problems) == [])
    }
}
