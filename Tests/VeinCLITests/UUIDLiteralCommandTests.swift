import Foundation
import Testing

/// A uuid field, SwiftData's most common key (`var id: UUID`), selected with Swift's spelling of a UUID
/// value, `UUID(uuidString: "…")`, in either case: the store holds the canonical uppercase text.
@Suite struct UUIDLiteralCommandTests {
    static let manifest = """
        { vein: 1, app: "com.example.people", version: "1.0.0", models: { P: { fields: { id: "uuid", n: "string" } } } }
        """
    static let first = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", second = "7B0C9E2A-1111-4222-8333-444455556666"

    func store() throws -> VeinRunner {
        let r = try VeinRunner()
        try Self.manifest.write(toFile: r.path("m.json5"), atomically: true, encoding: .utf8)
        try #require(try r.vein(["create", "s.vein", "--schema", "m.json5", "--plaintext"]).status == 0)
        for values in ["id: \"\(Self.first.lowercased())\", n: \"a\"", "id: UUID(uuidString: \"\(Self.second.lowercased())\")!, n: \"b\""] {
            let inserted = try r.vein(["query", "s.vein", "insert P(\(values))"])
            try #require(inserted.status == 0, "\(inserted.stderr)")
        }
        return r
    }

    /// The rows' `id,n` columns (the row key, `_id`, differs at every run).
    func select(_ r: VeinRunner, _ statement: String) throws -> String {
        let result = try r.vein(["query", "s.vein", statement, "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map { $0.split(separator: ",", maxSplits: 1).last.map(String.init) ?? "" }.joined(separator: "\n")
    }

    @Test func aUUIDValueSelectsItsRowWhicheverCaseItIsWrittenIn() throws {
        let r = try store()
        defer { r.cleanUp() }
        #expect(try select(r, "P where id == UUID(uuidString: \"\(Self.first.lowercased())\") sort n") == "id,n\n\(Self.first),a")
        #expect(try select(r, "P where id != UUID(uuidString: \"\(Self.first)\")! sort n") == "id,n\n\(Self.second),b")
        #expect(try select(r, "P where [UUID(uuidString: \"\(Self.second)\"), UUID(uuidString: \"\(Self.first)\")].contains(id) sort n")
                == "id,n\n\(Self.first),a\n\(Self.second),b")
        let updated = try r.vein(["query", "s.vein", "update P where id == UUID(uuidString: \"\(Self.second.lowercased())\") set n = \"c\""])
        #expect(updated.status == 0 && updated.stdout.hasPrefix("updated P ") && updated.stdout.hasSuffix(" (n)\n"), "\(updated.stdout)\(updated.stderr)")
        #expect(try select(r, "P sort n") == "id,n\n\(Self.first),a\n\(Self.second),c")
    }

    @Test func aStringIsNoUUIDAndTheErrorSaysHowToWriteOne() throws {
        let r = try store()
        defer { r.cleanUp() }
        let string = try r.vein(["query", "s.vein", "P where id == \"\(Self.first)\""])
        #expect(string.status == 65)
        #expect(string.stderr == """
            vein: error: cannot compare UUID with String, as in Swift: compare with a UUID value: UUID(uuidString: "…")
              P where id == "\(Self.first)"
                         ^

            """)
        let invalid = try r.vein(["query", "s.vein", "P where id == UUID(uuidString: \"E621E1F8-C36C\")"])
        #expect(invalid.status == 65)
        #expect(invalid.stderr == """
            vein: error: "E621E1F8-C36C" is not a UUID such as "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
              P where id == UUID(uuidString: "E621E1F8-C36C")
                                             ^

            """)
    }
}
