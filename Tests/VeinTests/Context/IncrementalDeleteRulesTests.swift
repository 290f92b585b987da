import Foundation
import Testing
@testable import Vein

/// `applyDeleteRules` adds to the delete set only the deletes made since its last run (issue 18, item 11:
/// a delete statement in a session with many pending changes costs what it deletes). What the earlier runs
/// found still counts, and a set that a rolled-back transaction emptied is built again.
@Suite struct IncrementalDeleteRulesTests {
    typealias Fixture = SetBasedDeleteTests.Fixture

    func deletes(_ context: ObjectContext) -> [String] {
        context.changes().filter { $0.kind == .delete }.map(\.id)
    }

    /// A blog of 3 posts of 2 comments, one comment with a report (its `reports` deny the comment's delete).
    func reportedComment() throws -> (Fixture, comment: String, report: String) {
        let f = try Fixture()
        try f.seed(blogs: 1)
        let setup = try f.context()
        let comment = try #require(try setup.fetch(ObjectFetch(model: "Comment")).first)
        let report = try setup.insert("Report", ["reason": .string("spam")])
        try comment.set("reports", .array([.string(report.id)]))
        try setup.save()
        return (f, comment.id, report.id)
    }

    @Test func eachRunAddsItsOwnDeletesToTheEarlierOnes() throws {
        let f = try Fixture()
        let seeded = try f.seed(blogs: 3)
        let context = try f.context()
        for (n, blog) in seeded.blogs.prefix(2).enumerated() {
            try context.delete(try #require(try context.object("Blog", id: blog)))
            try context.applyDeleteRules()
            // A blog, its 3 posts and their 6 comments per run, none listed twice.
            #expect(deletes(context).count == (n + 1) * 10 && Set(deletes(context)).count == (n + 1) * 10)
        }
        try context.save()
        #expect(try f.count("Blog") == 1 && f.count("Post") == 3 && f.count("Comment") == 6)
        #expect(try StoreVerifier.verify(try f.store()).isClean)
    }

    /// `deny` counts the members an earlier run already deletes: reports deleted first, then their comment.
    @Test func denyCountsWhatEarlierRunsDelete() throws {
        let (f, comment, report) = try reportedComment()

        let context = try f.context()
        try context.delete(try #require(try context.object("Report", id: report)))
        try context.applyDeleteRules()
        try context.delete(try #require(try context.object("Comment", id: comment)))
        try context.applyDeleteRules()
        #expect(Set(deletes(context)) == [report, comment])
        try context.save()
        #expect(try f.count("Comment") == 5 && f.count("Report") == 0)
    }

    /// A run inside a transaction that is rolled back leaves no rows in the set, though its deletes stay
    /// pending; the next run notices and builds the set again from every pending delete (else the report
    /// deleted in the first run would be missing from it, and `deny` would refuse its comment).
    @Test func aSetEmptiedByARollbackIsBuiltAgain() throws {
        let (f, comment, report) = try reportedComment()

        let context = try f.context()
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try context.transaction(.deferred) {
                try context.delete(try #require(try context.object("Report", id: report)))
                try context.applyDeleteRules()
                throw Abandoned()
            }
        }
        try context.delete(try #require(try context.object("Comment", id: comment)))
        try context.applyDeleteRules()
        #expect(Set(deletes(context)) == [report, comment])
        try context.save()
        #expect(try f.count("Comment") == 5 && f.count("Report") == 0)
    }
}
