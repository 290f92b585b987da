import Dispatch
import Foundation
import Testing
import VeinCore

/// What an app used to reach through the engine's context (`context.engine.explain`, `.interrupt`), on
/// VeinCore's own: a typed descriptor explained with the parts Foundation decides, and a fetch stopped
/// from another thread.
@Suite struct ExplainAndInterruptTests {
    @Test func explainShowsTheSQLAndWhatIsLeftToMemory() throws {
        let blog = try TypedFetchTests.Blog()
        defer { try? FileManager.default.removeItem(atPath: blog.folder) }
        let inSQL = try blog.context.explain(FetchDescriptor(predicate: #Predicate<Post> { $0.views >= 5 }, sortBy: [SortDescriptor(\.title)]))
        #expect(inSQL.sql.hasSuffix(#"FROM "Post" WHERE ("Post"."views" >= ?) ORDER BY "Post"."title" ASC, "Post"."_id" ASC"#), "\(inSQL.sql)")
        #expect(inSQL.inMemory == [])

        // A computed property has no column: Foundation filters, then applies the window.
        let shouted = FetchDescriptor(predicate: #Predicate<Post> { $0.shoutedTitle == "NOTES" }, fetchLimit: 1)
        #expect(try blog.context.explain(shouted).inMemory
                == ["the predicate (Foundation's evaluate on each fetched instance)", "fetchLimit and fetchOffset"])
    }

    /// A fetch whose condition never ends (a recursive query without a limit) ends when another thread
    /// interrupts it, throwing `ContextError.interrupted`, an error an app that imports VeinCore alone can
    /// name (SQLite's own is not exported to apps); the context then serves the next fetch.
    @Test func interruptStopsARunningFetch() throws {
        let blog = try TypedFetchTests.Blog()
        defer { try? FileManager.default.removeItem(atPath: blog.folder) }
        let context = blog.container.newContext()
        let endless = ModelPredicate<Post>(sql: "(WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT max(x) FROM n) > 0")
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        DispatchQueue.global().async {
            do { _ = try context.fetch(FetchDescriptor(predicate: endless)) } catch { failure = error }
            finished.signal()
        }
        // Interrupting before the statement starts does nothing: again until the fetch has ended.
        let deadline = DispatchTime.now() + 60
        while finished.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            try #require(DispatchTime.now() < deadline, "the fetch was not interrupted")
            context.interrupt()
        }
        #expect(failure as? ContextError == .interrupted, "\(String(describing: failure))")
        #expect(failure.map { "\($0)" } == "the fetch was interrupted before it finished; nothing was returned")
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 5)
    }
}
