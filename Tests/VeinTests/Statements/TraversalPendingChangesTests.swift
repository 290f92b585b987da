import Foundation
import Testing
@testable import Vein

/// `Post(#id(…)).attachments …` sees this context's unsaved changes with sort keys as without: a member
/// moved to the post and not saved is not in the store's inverse column yet (the sorted traversal read only
/// that column, and missed it).
@Suite struct TraversalPendingChangesTests {
    @Test func aSortedTraversalSeesAMemberMovedInThisContext() throws {
        let dir = try TempDir()
        let store = try dir.plaintextStore("b.vein", manifest: try Fixtures.blogManifest())
        let context = ObjectContext(store: store)
        let runner = QueryRunner(context: context)
        let one = try context.insert("Post", ["title": .string("one"), "content": .string("")])
        let two = try context.insert("Post", ["title": .string("two"), "content": .string("")])
        for name in ["a.png", "b.png"] {
            _ = try runner.run(#"insert Attachment(name: "\#(name)", fileType: .png, sizeMiB: 1, post: #id("\#(one.id)"))"#)
        }
        try context.save()
        _ = try runner.run(#"update Attachment where name == "a.png" set post = #id("\#(two.id)")"#)
        for (statement, expected) in [(#"Post(#id("\#(two.id)")).attachments"#, ["a.png"]),
                                      (#"Post(#id("\#(two.id)")).attachments sort name desc"#, ["a.png"]),
                                      (#"Post(#id("\#(one.id)")).attachments sort name desc"#, ["b.png"])] {
            guard case .objects(_, let objects) = try runner.run(statement) else { Issue.record("no objects: \(statement)"); continue }
            #expect(try objects.map { try $0["name"] } == expected.map(Value.string), "\(statement)")
        }
    }
}
