import Foundation
import Testing
@testable import Vein

/// Literal forms Swift accepts in a `#Predicate`: integers in other bases and with `_`, hexadecimal
/// floats, raw strings; and Swift's errors for malformed ones, with the caret.
@Suite struct ExpressionLiteralTests {
    func value(_ source: String) throws -> ParsedExpression.Literal? {
        guard case .literal(let literal, _) = try ExpressionParser.parse(source) else { return nil }
        return literal
    }

    func failure(_ source: String) -> String? {
        do {
            _ = try ExpressionParser.parse(source)
            return nil
        } catch {
            return error.rendered
        }
    }

    @Test func integersInEveryBaseWithSeparators() throws {
        #expect(try value("0x1F") == .int(31))
        #expect(try value("0xff_FF") == .int(65_535))
        #expect(try value("0o17") == .int(15))
        #expect(try value("0b101") == .int(5))
        #expect(try value("0b1_0_1") == .int(5))
        #expect(try value("1_000") == .int(1000))
        #expect(try value("1__000_") == .int(1000))
        #expect(try value("0x7FFF_FFFF_FFFF_FFFF") == .int(.max))
        #expect(try value("-0x8000000000000000") == .int(.min))
        #expect(try value("-0b101") == .int(-5))
        #expect(try value("0x1.8p1") == .double(3))
        #expect(try value("0x10p-2") == .double(4))
        #expect(try value("0xAP0") == .double(10))
        // A member access on a hexadecimal integer, as Swift's lexer reads `0xff.description`.
        #expect(try ExpressionParser.parse("0xff.description") == .member(base: .literal(.int(255), column: 0), name: "description", column: 5))
        let checked = try TypeChecker.checkPredicate("views == 0x1F && views > 0b1", model: ExpressionParserTests.post, manifest: ExpressionParserTests.manifest)
        guard case .and(.compare("==", _, .literal(.int(31), .int)), .compare(">", _, .literal(.int(1), .int))) = checked else {
            Issue.record("\(checked)")
            return
        }
    }

    @Test func malformedIntegersGiveSwiftsErrors() {
        #expect(failure("0x") == "expected a digit after integer literal prefix\n  0x\n    ^")
        #expect(failure("0x_1") == "expected a digit after integer literal prefix\n  0x_1\n    ^")
        #expect(failure("0b102") == "'2' is not a valid binary digit (0 or 1) in integer literal\n  0b102\n      ^")
        #expect(failure("0o8") == "'8' is not a valid octal digit (0-7) in integer literal\n  0o8\n    ^")
        #expect(failure("0x1G") == "'G' is not a valid hexadecimal digit (0-9, A-F) in integer literal\n  0x1G\n     ^")
        #expect(failure("0x1_0000_0000_0000_0000") == "integer 0x10000000000000000 does not fit in 64 bits\n  0x1_0000_0000_0000_0000\n  ^")
        #expect(failure("0x8000000000000000") == "integer 9223372036854775808 does not fit in 64 bits\n  0x8000000000000000\n  ^")
        #expect(failure("0x1.8") == "hexadecimal floating point literal must end with an exponent\n  0x1.8\n       ^")
        #expect(failure("0x1p") == "expected digits in the exponent\n  0x1p\n  ^")
    }

    @Test func rawStringsFollowSwiftsRules() throws {
        #expect(try value(##"#"a "quoted" \n"#"##) == .string(#"a "quoted" \n"#))
        #expect(try value(##"#"x\#ny\#t"#"##) == .string("x\ny\t"))
        #expect(try value(##"#"\#u{41}\#\"#"##) == .string("A\\"))
        #expect(try value(###"##"a"#b\#n"##"###) == .string(##"a"#b\#n"##))
        #expect(try value(###"##"\##n"##"###) == .string("\n"))
        #expect(try value(##"#""#"##) == .string(""))
        #expect(failure(###"#"a"##"###) == "too many '#' characters in closing delimiter\n  #\"a\"##\n       ^")
        #expect(failure(##"#"abc"##) == "unterminated string\n  #\"abc\n  ^")
        #expect(failure(##"#"abc""##) == "unterminated string\n  #\"abc\"\n  ^")
        #expect(failure(##"#"a\#q"#"##) == "invalid escape \\q\n  #\"a\\#q\"#\n     ^")
        #expect(failure(##"#"\#(title)"#"##) == "invalid escape \\(\n  #\"\\#(title)\"#\n    ^")
        let checked = try TypeChecker.checkPredicate(##"title == #"C:\dir"#"##, model: ExpressionParserTests.post, manifest: ExpressionParserTests.manifest)
        guard case .compare("==", _, .literal(.string(#"C:\dir"#), .string)) = checked else {
            Issue.record("\(checked)")
            return
        }
    }
}
