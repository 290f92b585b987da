import Foundation
import Testing

/// A compound unique constraint through the built binary: `vein schema` and the REPL's `.schema` show it,
/// `vein schema --swift` writes it as `#Unique`, and an insert or an import that repeats a combination is
/// refused in the schema's words, not SQLite's.
@Suite struct CompoundUniqueCommandTests {
    static let manifest = """
        { vein: 1, app: "t.people", version: "1.0.0",
          models: { Person: { fields: { firstName: "string", lastName: "string", email: "string? unique" },
                              unique: [["firstName", "lastName"]] } } }
        """

    static func store() throws -> VeinRunner {
        let r = try VeinRunner()
        try r.write("people.json5", manifest)
        try #require(try r.vein(["create", "p.vein", "--schema", "people.json5", "--plaintext"]).status == 0)
        return r
    }

    @Test func theSchemaShowsTheConstraint() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let schema = try r.vein(["schema", "p.vein"])
        #expect(schema.stdout == """
            t.people 1.0.0

            Person
              firstName  string
              lastName   string
              email      string? unique
              unique together: firstName, lastName

            """)
        #expect(try r.vein(["schema", "p.vein", "--swift"]).stdout.contains("    #Unique<Person>([\\.firstName, \\.lastName])\n"))
        let repl = try r.vein(["repl", "p.vein"], stdin: ".schema Person\n")
        #expect(repl.stdout.contains("  email: string? unique\n  unique together: firstName, lastName\n"), "\(repl.stdout)")
        #expect(try r.vein(["verify", "p.vein"]).status == 0)
    }

    @Test func anInsertThatRepeatsTheCombinationIsAClearError() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        let insert = #"insert Person(firstName: "Ada", lastName: "Lovelace")"#
        #expect(try r.vein(["query", "p.vein", insert]).status == 0)
        #expect(try r.vein(["query", "p.vein", #"insert Person(firstName: "Ada", lastName: "Byron")"#]).status == 0)
        let again = try r.vein(["query", "p.vein", insert])
        #expect(again.status == 65)
        #expect(again.stderr == """
            vein: error: the store refused the change: another Person already has this firstName and lastName \
            (firstName and lastName are unique together)
            hint: give the Person other values, or update the Person that has them

            """)
        #expect(try r.vein(["query", "p.vein", "count Person"]).stdout == "2\n")
    }

    /// A single unique field in the same words, from an insert, an update and a script's save (which
    /// stops, writing nothing; an interactive session's hint is ErrorTextTests').
    @Test func aRepeatedUniqueFieldIsAClearErrorEverywhere() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        #expect(try r.vein(["query", "p.vein", #"insert Person(firstName: "Ada", lastName: "L", email: "a@x")"#]).status == 0)
        #expect(try r.vein(["query", "p.vein", #"insert Person(firstName: "Bob", lastName: "L", email: "b@x")"#]).status == 0)
        let refused = """
            vein: error: the store refused the change: another Person already has this email (email is unique)
            hint: give the Person other values, or update the Person that has them

            """
        let insert = try r.vein(["query", "p.vein", #"insert Person(firstName: "Cy", lastName: "L", email: "a@x")"#])
        #expect(insert.status == 65)
        #expect(insert.stderr == refused)
        let update = try r.vein(["query", "p.vein", #"update Person where firstName == "Bob" set email = "a@x""#])
        #expect(update.status == 65)
        #expect(update.stderr == refused)
        let session = try r.vein(["repl", "p.vein"], stdin: #"insert Person(firstName: "Cy", lastName: "L", email: "a@x")"# + "\nsave\n")
        #expect(session.status == 65)
        #expect(session.stderr == """
            vein: error: line 2: the store refused the change: another Person already has this email (email is unique)
            hint: give the Person other values, or update the Person that has them

            """)
        #expect(try r.vein(["query", "p.vein", "count Person"]).stdout == "2\n")
    }

    @Test func anImportThatRepeatsTheCombinationNamesTheRecords() throws {
        let r = try Self.store()
        defer { r.cleanUp() }
        func id(_ n: Int) -> String { "01JDQ8ZK3M" + String(format: "%016d", n) }
        func record(_ n: Int, _ last: String) -> String { "{\"model\":\"Person\",\"id\":\"\(id(n))\",\"firstName\":\"Ada\",\"lastName\":\"\(last)\"}\n" }
        let header = "{\"vein\":1,\"app\":\"t.people\",\"schemaVersion\":\"1.0.0\"}\n"
        try r.write("one.jsonl", header + record(1, "Lovelace") + record(2, "Byron") + record(3, "Lovelace"))
        let one = try r.vein(["import", "p.vein", "one.jsonl"])
        #expect(one.status == 65)
        #expect(one.stderr == """
            vein: error: import from one.jsonl refused; nothing was written
            vein: error:   line 4: Person \(id(3)): another Person already has this firstName and lastName \
            (firstName and lastName are unique together)

            """)
        try r.write("many.jsonl", header + record(1, "Lovelace") + record(2, "Lovelace") + record(3, "Lovelace"))
        let many = try r.vein(["import", "p.vein", "many.jsonl"])
        #expect(many.stderr == """
            vein: error: import from many.jsonl refused; nothing was written
            vein: error:   Person: 2 records: another Person already has this firstName and lastName \
            (firstName and lastName are unique together): line 3 (\(id(2))), line 4 (\(id(3)))

            """)
        #expect(try r.vein(["query", "p.vein", "count Person"]).stdout == "0\n")
    }
}
