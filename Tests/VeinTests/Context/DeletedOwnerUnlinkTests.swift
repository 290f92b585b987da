import Foundation
import Testing
@testable import Vein

/// A member an owner let go of in memory is not reached by that owner's cascade when both happen in one
/// save: the cascade follows the store's links, so the owner's unlinks are written before it runs.
@Suite struct DeletedOwnerUnlinkTests {
    static let manifest = """
        { vein: 1, app: "test.unlink", version: "1.0.0", models: {
            Folder: { fields: { name: "string" },
                      relationships: { items: { to: "Item", many: true, deleteRule: "cascade" } } },
            Item: { fields: { name: "string" } } } }
        """

    /// A store with folder "f" holding item "x", saved.
    static func folderHoldingAnItem() throws -> (TempDir, Store, ModelObject, ModelObject) {
        let dir = try TempDir()
        let store = try dir.plaintextStore("u.vein", manifest: try ManifestParser.parse(manifest, file: "u.json5"))
        let setup = ObjectContext(store: store)
        let item = try setup.insert("Item", ["name": .string("x")])
        let folder = try setup.insert("Folder", ["name": .string("f"), "items": .array([.string(item.id)])])
        try setup.save()
        return (dir, store, item, folder)
    }

    @Test func aMemberMovedOutOfADeletedOwnerSurvivesItsCascade() throws {
        let dir = try TempDir()
        let store = try dir.plaintextStore("u.vein", manifest: try ManifestParser.parse(Self.manifest, file: "u.json5"))
        let setup = ObjectContext(store: store)
        let item = try setup.insert("Item", ["name": .string("x")])
        let doomed = try setup.insert("Folder", ["name": .string("old"), "items": .array([.string(item.id)])])
        let keeper = try setup.insert("Folder", ["name": .string("new")])
        try setup.save()

        let context = ObjectContext(store: store)
        let old = try #require(try context.object("Folder", id: doomed.id))
        let new = try #require(try context.object("Folder", id: keeper.id))
        try new.set("items", .array([.string(item.id)]))
        try old.set("items", .array([]))
        try context.delete(old)
        try context.save()

        let check = ObjectContext(store: store)
        #expect(try check.object("Item", id: item.id) != nil)
        #expect(try check.object("Folder", id: keeper.id)?.related("items").map(\.id) == [item.id])
        #expect(try check.object("Folder", id: doomed.id) == nil)
    }

    /// A cascade decided from a list this context read is checked against the store at save: another
    /// context (a process, as far as the store can tell) unlinked the member since; deleting it then would
    /// take a row the owner no longer holds, so the save is a conflict and writes nothing.
    @Test func aCascadeThroughALinkAnotherContextRemovedIsAConflict() throws {
        let (dir, store, item, folder) = try Self.folderHoldingAnItem()
        _ = dir

        let reader = ObjectContext(store: store)
        let held = try #require(try reader.object("Folder", id: folder.id))
        let members = try held.related("items")
        #expect(members.map(\.id) == [item.id])

        let other = ObjectContext(store: store)
        try #require(try other.object("Folder", id: folder.id)).set("items", .array([]))
        try other.save()

        try reader.delete(held)
        #expect(throws: ContextError.conflict(model: "Item", id: item.id)) { try reader.save() }
        let check = ObjectContext(store: store)
        #expect(try check.object("Item", id: item.id) != nil)
        #expect(try check.object("Folder", id: folder.id) != nil)
        _ = members
    }

    /// The same cascade with the link standing deletes the member, and one the caller also names is
    /// deleted whatever the links say.
    @Test func aCascadeThroughAStandingLinkDeletesTheMember() throws {
        let (dir, store, item, folder) = try Self.folderHoldingAnItem()
        _ = dir

        let reader = ObjectContext(store: store)
        let held = try #require(try reader.object("Folder", id: folder.id))
        let members = try held.related("items")
        try reader.delete(held)
        try reader.save()
        let check = ObjectContext(store: store)
        #expect(try check.object("Item", id: item.id) == nil)
        #expect(try check.object("Folder", id: folder.id) == nil)
        _ = members
    }

    /// As `vein query` and the REPL run it: a pending unlink, then a delete of the owner whose rules are
    /// applied before the save (to list what cascade takes). The member held in memory is not made a
    /// pending delete from the store's stale link; the save's cascade, after the unlink is written, spares it.
    @Test func aStatementDeleteAfterAPendingUnlinkSparesTheMember() throws {
        let (dir, store, item, folder) = try Self.folderHoldingAnItem()
        _ = dir

        let context = ObjectContext(store: store)
        let held = try #require(try context.object("Item", id: item.id))
        let runner = QueryRunner(context: context)
        _ = try runner.run("update Folder set items = []")
        _ = try runner.run("delete Folder")
        try context.save()
        let check = ObjectContext(store: store)
        #expect(try check.object("Item", id: item.id) != nil)
        #expect(try check.object("Folder", id: folder.id) == nil)
        _ = held
    }
}
