import Foundation
import Testing
@testable import Vein
@testable import VeinCore

/// `post.attachments(where:sort:)`, which @Model generates for a to-many with an inverse (docs/app-guide.md): the
/// members a condition selects, found in SQL through the relationship's index, in the relationship's order
/// without sort keys.
@Suite struct RelationshipQueryTests {
    static func post(_ context: VeinCore.ModelContext, sizes: [Int]) throws -> Post {
        let post = Post(title: "p", content: "")
        post.attachments = sizes.enumerated().map { Attachment(name: "a\($0.offset)", fileType: .png, data: Data(count: $0.element)) }
        context.insert(post)
        return post
    }

    @Test func membersAConditionSelectsInTheRelationshipsOrderOrSorted() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let post = try Self.post(container.context, sizes: [3, 1, 4, 1, 5])
        post.attachments = [post.attachments[4], post.attachments[0], post.attachments[1], post.attachments[2], post.attachments[3]]
        try container.context.save()

        let reader = container.newContext()
        let stored = try #require(try reader.fetch(Post.self).first)
        #expect(try stored.attachments().map(\.name) == ["a4", "a0", "a1", "a2", "a3"], "the relationship's order, not creation order")
        #expect(try stored.attachments(where: #Predicate { $0.name != "a0" }).map(\.name) == ["a4", "a1", "a2", "a3"])
        #expect(try stored.attachments(sort: [SortDescriptor(\.name, order: .reverse)]).map(\.name) == ["a4", "a3", "a2", "a1", "a0"])
        let large = #Predicate<Attachment> { $0.sizeMiB > 0.0000025 }  // more than 2 bytes
        #expect(try stored.attachments(where: large, sort: [SortDescriptor(\.name)]).map(\.name) == ["a0", "a2", "a4"])
        #expect(try stored.attachments(where: large).allSatisfy { $0.post === stored })

        // Unsaved changes count: an added member, a removed one, a changed field.
        let added = Attachment(name: "new", fileType: .gif, data: Data(count: 9))
        stored.attachments = try stored.attachments().filter { $0.name != "a2" } + [added]
        try #require(try stored.attachments().first).name = "a4, renamed"
        #expect(try stored.attachments(where: large).map(\.name) == ["a4, renamed", "a0", "new"])

        // Before the post is inserted its members are in memory, and filtered there.
        let draft = Post(title: "draft", content: "")
        draft.attachments = [Attachment(name: "x", fileType: .png, data: Data(count: 1)), Attachment(name: "y", fileType: .png, data: Data(count: 8))]
        #expect(try draft.attachments(where: large).map(\.name) == ["y"])
        #expect(try draft.attachments(sort: [SortDescriptor(\.name, order: .reverse)]).map(\.name) == ["y", "x"])
    }

    /// 10,000 members and a condition that selects 3: the members are restricted in SQL through the
    /// relationship's index and the condition runs there, so the context materializes the 3, not the
    /// 10,000 (filtering `post.attachments` in memory would read every one).
    @Test func aSelectiveConditionOverALongListReadsOnlyTheRowsItSelects() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let post = try Self.post(container.context, sizes: (0..<10_000).map { $0 % 4_000 == 7 ? 3 : 0 })
        try container.context.save()

        let reader = container.newContext()
        let stored = try #require(try reader.fetch(Post.self).first)
        let selective = #Predicate<Attachment> { $0.sizeMiB > 0 }
        #expect(try stored.attachments(where: selective).map(\.name) == ["a7", "a4007", "a8007"])
        #expect(reader.engine.lock.withLock { reader.engine.identityMap.count } <= 4, "the post and the 3 members")

        let owner = try #require(stored._$backing.object)
        let (plan, engine) = try stored.membersPlan(of: owner, "attachments", where: selective, sort: [SortDescriptor(\Attachment.name)])
        let explanation = try engine.explain(plan.engine)
        #expect(explanation.sql.contains(#"IN (SELECT "_r"."_id" AS "_m" FROM "Attachment" AS "_r" WHERE "_r"."post" = ?"#))
        #expect(explanation.sql.contains(#""sizeMiB""#), "the condition is in the SQL: \(explanation.sql)")
        #expect(explanation.inMemory == [])
        // The members through the inverse column's index (the outer `id IN` uses the primary key's anyway).
        #expect(explanation.queryPlan.contains { $0.contains("AS _r USING") && $0.contains("INDEX") && $0.contains("(post=?)") },
                "\(explanation.queryPlan)")
        _ = post
    }

    /// An unsaved link on the owner keeps the relationship's index: the stored members in SQL OR the ids
    /// linked since, not (over 900 members, more than SQLite binds) every row of the members' table.
    @Test func anUnsavedLinkKeepsTheIndexOverALongList() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        _ = try Self.post(container.context, sizes: (0..<1_000).map { $0 == 7 ? 3 : 0 })
        try container.context.save()

        let reader = container.newContext()
        let stored = try #require(try reader.fetch(Post.self).first)
        let added = Attachment(name: "new", fileType: .gif, data: Data(count: 9))
        added.post = stored
        reader.insert(added)
        let held = reader.engine.lock.withLock { reader.engine.identityMap.count }
        let found = try stored.attachments(where: #Predicate { $0.sizeMiB > 0 }).map(\.name)
        #expect(found == ["a7", "new"])
        #expect(reader.engine.lock.withLock { reader.engine.identityMap.count } <= held + 1, "a7 only, not the 1,000")
        let owner = try #require(stored._$backing.object)
        let (plan, engine) = try stored.membersPlan(of: owner, "attachments", where: #Predicate<Attachment> { $0.sizeMiB > 0 }, sort: [SortDescriptor<Attachment>]())
        #expect(try engine.explain(plan.engine).sql.contains(#"IN (SELECT "_r"."_id" AS "_m" FROM "Attachment" AS "_r" WHERE "_r"."post" = ?"#))
    }

    @Test func aKeyPathThatIsNoStoredRelationshipIsAnError() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        let post = try Self.post(container.context, sizes: [1])
        let error = try #require(throws: ModelConvenienceError.self) { try post.related(\.pngs) }
        #expect(error.description == "related(_:where:sort:): the key path is not a stored to-many relationship of Post")
    }
}

extension Post {
    var pngs: [Attachment] { attachments.filter { $0.fileType == .png } }
}
