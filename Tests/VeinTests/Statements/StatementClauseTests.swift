import Foundation
import Testing
@testable import Vein

/// A statement's clauses (where, sort, limit, offset) are each given once and in that order, and a sort
/// key the model does not have is an error pointing at it, like any other name.
@Suite struct StatementClauseTests {
    func parseError(_ source: String) -> String? {
        do {
            _ = try QueryParser.parse(source)
            return nil
        } catch {
            return error.rendered
        }
    }

    func runError(_ source: String) throws -> String? {
        let dir = try TempDir()
        let runner = QueryRunner(context: ObjectContext(store: try dir.plaintextStore("b.vein", manifest: try Fixtures.blogManifest())))
        do {
            _ = try runner.run(source)
            return nil
        } catch let error as ExpressionError {
            return error.rendered
        }
    }

    /// Before: "unexpected 'limit' (expected where, sort, limit or offset) (did you mean 'limit'?)".
    @Test func aClauseGivenTwiceSaysSo() {
        #expect(parseError("Post limit 1 limit 2") == "limit is given twice\n  Post limit 1 limit 2\n               ^")
        #expect(parseError("Post offset 1 offset 2") == "offset is given twice\n  Post offset 1 offset 2\n                ^")
        #expect(parseError("Post sort title sort views") == "sort is given twice\n  Post sort title sort views\n                  ^")
        #expect(parseError("count Post where views > 1 where views < 5") == """
            where is given twice
              count Post where views > 1 where views < 5
                                         ^
            """)
        // An update's rows are chosen by its where clause: a second one is the same mistake, not a missing 'set'.
        #expect(parseError("update Post where views > 1 where views < 5 set views = 0") == """
            where is given twice
              update Post where views > 1 where views < 5 set views = 0
                                          ^
            """)
    }

    @Test func aClauseOutOfOrderSaysTheOrder() {
        #expect(parseError("Post limit 1 where views > 1") == """
            where comes before limit (the clauses go where, sort, limit, offset)
              Post limit 1 where views > 1
                           ^
            """)
        #expect(parseError("Post offset 2 limit 1") == """
            limit comes before offset (the clauses go where, sort, limit, offset)
              Post offset 2 limit 1
                            ^
            """)
    }

    /// What may still come is what an unknown word is told, and suggested from.
    @Test func anUnknownWordIsToldTheClausesThatMayStillCome() {
        #expect(parseError("Post limt 1") == """
            unexpected 'limt' (expected where, sort, limit or offset) (did you mean 'limit'?)
              Post limt 1
                   ^
            """)
        #expect(parseError("Post limit 1 ofset 2") == """
            unexpected 'ofset' (expected offset) (did you mean 'offset'?)
              Post limit 1 ofset 2
                           ^
            """)
        #expect(parseError("Post offset 1 junk") == "unexpected 'junk' (expected the end of the statement)\n  Post offset 1 junk\n                ^")
    }

    /// Before: "no field 'nope' in Post" with no caret (the fetch found it, without the source).
    @Test func anUnknownSortKeyPointsAtIt() throws {
        #expect(try runError("Post sort nope") == "no field 'nope' in Post\n  Post sort nope\n            ^")
        #expect(try runError("Post sort title, viewz desc") == """
            no field 'viewz' in Post (did you mean 'views'?)
              Post sort title, viewz desc
                               ^
            """)
        #expect(try runError("Post sort attachments") == """
            cannot sort by 'attachments': it is a to-many relationship (sort by one of Post's fields)
              Post sort attachments
                        ^
            """)
        #expect(try runError("Attachment sort post, id desc") == nil)
    }
}
