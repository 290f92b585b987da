import Testing
@testable import Vein

/// Swift's whitespace rules for `!` and `?` (checked against `swiftc -typecheck`): a `!` or `?.` after a
/// space is not postfix, the conditional operator's `?` needs a space before it, and a prefix operator
/// touches its operand. What Swift refuses is refused with a caret under the operator.
@Suite struct ExpressionSpacingTests: PredicateChecking {
    @Test func refusedAsSwiftRefusesThem() {
        #expect(failure(#"publishedAt ! < #date("2026-01-01")"#) == """
            '!' after a space is not a postfix operator, as in Swift: to force unwrap, write it right after the value (x!)
              publishedAt ! < #date("2026-01-01")
                          ^
            """)
        #expect(failure("(publishedAt !) == nil") == """
            '!' after a space is not a postfix operator, as in Swift: to force unwrap, write it right after the value (x!)
              (publishedAt !) == nil
                           ^
            """)
        #expect(failure("(views > 1?1:2) == 1") == """
            the conditional operator needs a space before '?', as in Swift (c ? a : b); a '?' right after a value is optional chaining
              (views > 1?1:2) == 1
                        ^
            """)
        #expect(failure("(views > 1? 1 : 2) == 1") == """
            the conditional operator needs a space before '?', as in Swift (c ? a : b); a '?' right after a value is optional chaining
              (views > 1? 1 : 2) == 1
                        ^
            """)
        #expect(failure("! (views > 1)") == """
            unary operator cannot be separated from its operand, as in Swift
              ! (views > 1)
              ^
            """)
        #expect(failure("- views < 0") == """
            unary operator cannot be separated from its operand, as in Swift
              - views < 0
              ^
            """)
        #expect(failure(#"post ?.title == "x""#, model: ExpressionParserTests.attachment) == """
            '?.' after a space is not optional chaining, as in Swift: write it right after the value (post?.title)
              post ?.title == "x"
                   ^
            """)
    }

    @Test func acceptedAsSwiftAcceptsThem() throws {
        for source in [#"publishedAt! < #date("2026-01-01")"#, #"(publishedAt)! < #date("2026-01-01")"#, "(views > 1 ? 1 : 2) == 1",
                       "(views > 1 ?1:2) == 1", "(views > 1 ? 1:2) == 1", "!(views > 1)", "-views < 0", "views - 1 > 0", "views-1 > 0",
                       "title != \"x\""] {
            #expect(failure(source) == nil, "\(source)")
        }
    }
}
