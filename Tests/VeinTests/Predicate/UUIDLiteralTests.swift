import Foundation
import Testing
@testable import Vein

/// A UUID value is written as Swift writes one, `UUID(uuidString: "…")` (docs/expressions.md: what works here pastes
/// into Swift), typed `UUID?` as Swift's failable initializer is; a string is not a UUID, and the error
/// comparing one with a UUID says how to write the value. A UUID a `#Predicate` captures reaches the
/// engine as a uuid-typed literal (`Literal.uuid`). Both are compared in the stored form (uppercase).
@Suite struct UUIDLiteralTests {
    static let manifest = try! ManifestParser.parse(
        "{ vein: 1, app: \"a\", version: \"1.0.0\", models: { T: { fields: { key: \"uuid\", other: \"uuid?\" } } } }", file: "m")
    static let lower = "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", upper = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

    static func check(_ source: String) throws(ExpressionError) -> TypedExpression {
        try TypeChecker.checkPredicate(source, model: manifest.model(named: "T")!, manifest: manifest)
    }

    static func failure(_ source: String) -> String? {
        do {
            let typed = try check(source)
            Issue.record("\(source) accepted: \(typed)")
            return nil
        } catch {
            return error.rendered
        }
    }

    @Test func aStringComparedWithAUUIDIsSwiftsErrorAndSaysHowToWriteAUUID() throws {
        let wants = ", as in Swift: compare with a UUID value: UUID(uuidString: \"…\")"
        for (source, types) in [("key == \"7b0c9e2a-1111-4222-8333-444455556666\"", "UUID with String"),
                                ("\"7B0C9E2A-1111-4222-8333-444455556666\" != other", "String with UUID?"),
                                ("key == \"7b0c\"", "UUID with String")] {
            do {
                let typed = try Self.check(source)
                Issue.record("\(source) accepted: \(typed)")
            } catch {
                #expect(error.message == "cannot compare \(types)" + wants, "\(source)")
            }
        }
    }

    @Test func swiftsInitializerIsAUUIDLiteralOfTypeOptionalUUID() throws {
        guard case .literal(.uuidString(let uuid), 0) = try ExpressionParser.parse("UUID(uuidString: \"\(Self.lower)\")") else {
            Issue.record("not a UUID literal")
            return
        }
        #expect(uuid == UUID(uuidString: Self.upper))
        // In its stored form whichever case it was written in; `UUID?` as in Swift, `UUID` once unwrapped.
        for (source, type) in [("key == UUID(uuidString: \"\(Self.lower)\")", ValueType.optional(.uuid)),
                               ("other != UUID(uuidString: \"\(Self.upper)\")", .optional(.uuid)),
                               ("key == UUID(uuidString: \"\(Self.lower)\")!", .uuid),
                               ("UUID(uuidString: #\"\(Self.lower)\"#)! == other", .uuid)] {
            let typed = try Self.check(source)
            switch typed {
            case .compare(_, .column, .literal(let value, let t)), .compare(_, .literal(let value, let t), .column):
                #expect(value == .string(Self.upper) && t == type, "\(source): \(typed)")
            default: Issue.record("\(source): \(typed)")
            }
        }
        guard case .inList(let items, .column) = try Self.check("[UUID(uuidString: \"\(Self.lower)\"), nil].contains(other)") else {
            Issue.record("not a list")
            return
        }
        #expect(items == [.literal(.string(Self.upper), .optional(.uuid)), .literal(.null, .null)])
    }

    @Test func aStringThatIsNoUUIDIsAnErrorUnderIt() {
        #expect(Self.failure("key == UUID(uuidString: \"E621E1F8-C36C\")") == """
            "E621E1F8-C36C" is not a UUID such as "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
              key == UUID(uuidString: "E621E1F8-C36C")
                                      ^
            """)
        #expect(Self.failure("key == UUID(\"\(Self.upper)\")") == """
            UUID takes a string: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
              key == UUID("\(Self.upper)")
                          ^
            """)
        #expect(Self.failure("key == UUID()") == """
            UUID takes a string: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
              key == UUID()
                          ^
            """)
        #expect(Self.failure("key == UUID(uuidString: key)") == """
            UUID takes a string: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
              key == UUID(uuidString: key)
                          ^
            """)
    }

    @Test func swiftsTypeRulesHoldForIt() {
        #expect(Self.failure("UUID(uuidString: \"\(Self.upper)\")") == """
            a condition must be a Bool, not UUID?
              UUID(uuidString: "\(Self.upper)")
              ^
            """)
        #expect(Self.failure("key < UUID(uuidString: \"\(Self.upper)\")!") == """
            UUID values cannot be ordered with '<'
              key < UUID(uuidString: "\(Self.upper)")!
                  ^
            """)
    }

    @Test func aCapturedUUIDIsComparedInItsStoredForm() throws {
        let uuid = UUID(uuidString: "7b0c9e2a-1111-4222-8333-444455556666")!
        let model = Self.manifest.model(named: "T")!
        let checker = TypeChecker(manifest: Self.manifest, model: model, source: "")
        for field in ["key", "other"] {
            let typed = try checker.check(.binary(op: "==", left: .member(base: nil, name: field, column: 0), right: .literal(.uuid(uuid), column: 0), column: 0))
            guard case .compare("==", .column(_, let type), .literal(let literal, .uuid)) = typed, type.unwrapped == .uuid else {
                Issue.record("\(typed)")
                continue
            }
            #expect(literal == .string("7B0C9E2A-1111-4222-8333-444455556666"))
        }
    }
}
