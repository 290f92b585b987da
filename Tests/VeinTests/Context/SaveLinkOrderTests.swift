import Foundation
import Testing
@testable import Vein

/// A save writes each list in the order the context shows it, whichever way a member joined: inserted
/// naming its owner (placed by its row's insert, `LinkPlan`), moved from another owner, inserted naming
/// one owner and then moved, or the list set whole.
@Suite struct SaveLinkOrderTests {
    func names(_ f: ContextFixture, of post: String) throws -> [String] {
        let reader = try f.context()  // held: an object outliving its context cannot be read
        return try reader.object("Post", id: post)!.related("attachments").map { try $0["name"].stringValue ?? "" }
    }

    func attachment(_ context: ObjectContext, _ name: String, post: String?) throws -> ModelObject {
        try context.insert("Attachment", ["name": .string(name), "sizeMiB": .double(1), "post": post.map(Value.string) ?? .null])
    }

    @Test func newAndMovedMembersKeepTheContextsOrder() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let p = try setup.insert("Post", ["title": .string("p"), "content": .string("c")]).id
        let q = try setup.insert("Post", ["title": .string("q"), "content": .string("c")]).id
        _ = try attachment(setup, "a", post: p)
        _ = try attachment(setup, "b", post: p)
        let c = try attachment(setup, "c", post: q).id
        try setup.save()

        let context = try f.context()
        _ = try attachment(context, "n1", post: p)
        try context.object("Attachment", id: c)!.set("post", .string(p))
        _ = try attachment(context, "n2", post: p)
        try attachment(context, "n3", post: q).set("post", .string(p))
        try attachment(context, "n4", post: p).set("post", .string(q))
        _ = try attachment(context, "n5", post: nil)
        let shown = try context.object("Post", id: p)!.related("attachments").map { try $0["name"].stringValue ?? "" }
        #expect(shown == ["a", "b", "n1", "c", "n2", "n3"])
        try context.save()
        #expect(try names(f, of: p) == shown)
        #expect(try names(f, of: q) == ["n4"])
        #expect(try f.verify() == [])

        // Appended again after a save: after the highest stored position.
        _ = try attachment(context, "n6", post: p)
        try context.save()
        #expect(try names(f, of: p) == shown + ["n6"])
    }

    @Test func aListSetWholeWithNewMembers() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let p = try setup.insert("Post", ["title": .string("p"), "content": .string("c")])
        let a = try attachment(setup, "a", post: p.id).id
        let b = try attachment(setup, "b", post: p.id).id
        try setup.save()

        let context = try f.context()
        let post = try #require(try context.object("Post", id: p.id))
        let n1 = try attachment(context, "n1", post: nil).id
        let n2 = try attachment(context, "n2", post: p.id).id
        try post.set("attachments", .array([b, n1, a, n2].map(Value.string)))
        try context.save()
        #expect(try names(f, of: p.id) == ["b", "n1", "a", "n2"])
        #expect(try f.verify() == [])
    }
}
