import Testing
@testable import Vein

/// Counted words: a count of one takes the singular noun and a verb that agrees with it.
@Suite struct PhraseTests {
    @Test func oneIsSingularEverythingElsePlural() {
        #expect(Phrase.rows(1) == "1 row" && Phrase.rows(0) == "0 rows" && Phrase.rows(2) == "2 rows")
        #expect(Phrase.count(1, "id") == "1 id" && Phrase.count(3, "id") == "3 ids")
        #expect(Phrase.count(Int64(1), "byte") == "1 byte")
        #expect(Phrase.count(2, "child", plural: "children") == "2 children")
        #expect(Phrase.count(1, "more finding") == "1 more finding")
    }

    @Test func theVerbAgrees() {
        #expect(Phrase.count(1, "value", "are") == "1 value is" && Phrase.count(2, "value", "are") == "2 values are")
        #expect(Phrase.rows(1, "point to") == "1 row points to" && Phrase.rows(5, "point to") == "5 rows point to")
        #expect(Phrase.rows(1, "hold") == "1 row holds" && Phrase.rows(1, "share") == "1 row shares")
        #expect(Phrase.rows(1, "would hold") == "1 row would hold")
        #expect(Phrase.count(1, "argument", "were") == "1 argument was")
        #expect(Phrase.agreeing("push", with: 1) == "pushes" && Phrase.agreeing("have", with: 1) == "has")
    }
}
