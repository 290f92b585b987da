import Foundation
import Testing
@testable import Vein
import VeinCore

/// The statement cache is keyed by SQL text, and each raw condition (`ModelPredicate`) is a text of the
/// app's: the cache stays bounded however many an app builds.
@Suite struct StatementCacheBoundTests {
    @Test func manyConditionsKeepTheStatementCacheBounded() throws {
        let container = try ModelConveniencesTests.blog()
        let context = container.context
        for n in 0..<(Vein.Database.statementCacheLimit + 50) {
            _ = try context.fetchAll(VeinCore.ModelPredicate<Post>(sql: "views > \(n)"))
        }
        let cached = try context.engine.lock.withLock { try context.engine.database.cachedStatementCount }
        #expect(cached <= Vein.Database.statementCacheLimit)
        #expect(try context.fetchAll(VeinCore.ModelPredicate<Post>(sql: "views > 8")).count == 2)
    }
}
