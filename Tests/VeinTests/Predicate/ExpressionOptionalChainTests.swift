import Foundation
import Testing
@testable import Vein

/// Optional chaining as Swift has it: `legacyCode?.count`, `legacyCode?.hasPrefix("a")`, and a chain past
/// the to-one hop (`post?.title.contains("x")`) are optional, nil where the chain meets nil; where a Bool
/// is wanted a Bool? is refused with what to write instead.
@Suite struct ExpressionOptionalChainTests {
    static let manifest = try! ManifestParser.parse("""
        { vein: 1, app: "test.chain", version: "1.0.0", models: {
            Post: { fields: { title: "string", legacyCode: "string?" },
                    relationships: { notes: { to: "Note", many: true, inverse: "post" } } },
            Note: { fields: { text: "string" }, relationships: { post: { to: "Post", inverse: "notes" } } },
        } }
        """, file: "chain.json5")
    static let post = manifest.model(named: "Post")!
    static let note = manifest.model(named: "Note")!

    func check(_ source: String, model: ModelSchema = Self.post) throws -> TypedExpression {
        try TypeChecker.checkPredicate(source, model: model, manifest: Self.manifest)
    }

    func failure(_ source: String, model: ModelSchema = Self.post) -> String? {
        do { _ = try TypeChecker.checkPredicate(source, model: model, manifest: Self.manifest); return nil } catch { return error.rendered }
    }

    @Test func chainsAreOptionalAsInSwift() throws {
        let code = TypedExpression.column(.init(hop: nil, column: "legacyCode", storedType: .optional(.string)), .optional(.string))
        #expect(try check("legacyCode?.count == 2") == .compare("==", .stringMethod("count", code, nil, .optional(.int)), .literal(.int(2), .int)))
        #expect(try check("legacyCode?.hasPrefix(\"a\") == true")
                == .compare("==", .stringMethod("hasPrefix", code, .literal(.string("a"), .string), .optional(.bool)), .literal(.bool(true), .bool)))
        guard case .compare("==", .stringMethod("contains", .column(let path, _), _, .optional(.bool)), _) = try check("post?.title.contains(\"x\") == true", model: Self.note),
              path.hop?.name == "post", case .compare(">", .coalesce(.stringMethod("count", _, _, .optional(.int)), _, .int), _) = try check("(legacyCode?.lowercased().count ?? 0) > 1") else {
            Issue.record("wrong chain types")
            return
        }
    }

    @Test func errorsSayWhatToWrite() {
        #expect(failure("legacyCode?.hasPrefix(\"a\")") == """
            a condition must be a Bool, not Bool?; write (…) == true to take nil as false, as Swift requires
              legacyCode?.hasPrefix("a")
                          ^
            """)
        #expect(failure("legacyCode?.isEmpty && title.isEmpty") == """
            '&&' needs Bool operands, not Bool?; write (…) == true to take nil as false, as Swift requires
              legacyCode?.isEmpty && title.isEmpty
                          ^
            """)
        #expect(failure("!legacyCode?.isEmpty") == """
            '!' needs a Bool, not Bool?; write (…) == true to take nil as false, as Swift requires
              !legacyCode?.isEmpty
              ^
            """)
        #expect(failure("legacyCode.count == 2") == """
            value of optional type String? must be unwrapped to use 'count' (use ?? to give a default, or ?. to chain)
              legacyCode.count == 2
                         ^
            """)
        #expect(failure("legacyCode? == nil") == """
            the conditional operator needs a space before '?', as in Swift (c ? a : b); a '?' right after a value is optional chaining
              legacyCode? == nil
                        ^
            """)
        // Parentheses end the chain, as in Swift: `?.` continues it.
        #expect(failure("(legacyCode?.lowercased()).count == 2") == """
            the parentheses end the optional chain, so the value is optional: continue it with ?. or give a default with ??
              (legacyCode?.lowercased()).count == 2
                                        ^
            """)
        #expect(failure("(legacyCode?.lowercased())?.count == 2") == nil)
        #expect(failure("title?.isEmpty == true") == """
            cannot use optional chaining on non-optional value of type String
              title?.isEmpty == true
                   ^
            """)
    }

    /// nil propagates: a chain that meets nil is nil, equal to nil and to nothing else, in SQL and memory.
    @Test func nilPropagatesInSQLAndInMemory() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let store = try dir.plaintextStore("c.vein", manifest: Self.manifest)
        let writer = ObjectContext(store: store)
        for (title, code) in [("n", nil), ("e", ""), ("ab", "ab"), ("abc", "Abc")] as [(String, String?)] {
            let post = try writer.insert("Post", ["title": .string(title), "legacyCode": code.map(Value.string) ?? .null])
            _ = try writer.insert("Note", ["text": .string("on \(title)"), "post": .string(post.id)])
        }
        _ = try writer.insert("Note", ["text": .string("orphan")])
        try writer.save()
        let context = ObjectContext(store: store)
        func selected(_ condition: String, _ model: ModelSchema, _ field: String) throws -> [String] {
            let typed = try check(condition, model: model)
            let fetched = try context.fetch(ObjectFetch(model: model.name, predicate: typed)).map { try $0[field].stringValue! }.sorted()
            let inMemory = try context.fetch(ObjectFetch(model: model.name)).filter { try context.evaluator(for: $0).test(typed) }
                .map { try $0[field].stringValue! }.sorted()
            #expect(fetched == inMemory, "\(condition)")
            return inMemory
        }
        #expect(try selected("legacyCode?.count == 2", Self.post, "title") == ["ab"])
        #expect(try selected("legacyCode?.count == nil", Self.post, "title") == ["n"])
        #expect(try selected("legacyCode?.isEmpty != false", Self.post, "title") == ["e", "n"])
        #expect(try selected("legacyCode?.isEmpty == false", Self.post, "title") == ["ab", "abc"])
        #expect(try selected("legacyCode?.hasPrefix(\"a\") == true", Self.post, "title") == ["ab"])
        #expect(try selected("legacyCode?.lowercased() == \"abc\"", Self.post, "title") == ["abc"])
        #expect(try selected("post?.title.contains(\"b\") == true", Self.note, "text") == ["on ab", "on abc"])
        #expect(try selected("post?.title.isEmpty != false", Self.note, "text") == ["orphan"])
        #expect(try selected("(post?.legacyCode?.count ?? -1) == -1", Self.note, "text") == ["on n", "orphan"])
    }
}
