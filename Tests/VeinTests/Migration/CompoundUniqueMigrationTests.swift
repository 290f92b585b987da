import Foundation
import Testing
@testable import Vein

/// A stage that adds a compound unique constraint checks the rows against it before anything changes, and
/// one that keeps or drops the constraint needs no check.
@Suite struct CompoundUniqueMigrationTests {
    static let v1 = schema("1.0.0", "Person: { fields: { firstName: \"string\", lastName: \"string\", nickname: \"string?\" } }")
    static let v2 = schema("1.1.0", """
        Person: { fields: { firstName: "string", lastName: "string", nickname: "string?" }, unique: [["firstName", "lastName"]] }
        """)

    @Test func addingTheConstraintOverDuplicatesFailsNamingTheFieldsAndAValue() throws {
        let f = try MigrationFixture(Self.v1)
        defer { f.dir.cleanUp() }
        let ids = try f.insert("Person", [["firstName": .string("Ada"), "lastName": .string("Lovelace")],
                                          ["firstName": .string("Ada"), "lastName": .string("Byron")],
                                          ["firstName": .string("Ada"), "lastName": .string("Lovelace")]])
        let before = try f.open().database.rows("SELECT sql FROM sqlite_master ORDER BY name")
        let found = unhandled { _ = try f.run(try MigrationFixture.plan([Self.v1, Self.v2], [""])) }
        #expect(found == ["Person: 2 rows share values of (firstName, lastName), which 1.1.0 makes unique together, "
                          + "such as (\"Ada\", \"Lovelace\") (\(ids[0]), \(ids[2]))"])
        #expect(try f.version() == "1.0.0")
        #expect(try f.open().database.rows("SELECT sql FROM sqlite_master ORDER BY name") == before)
        #expect(try f.column("Person", "lastName") == [.text("Lovelace"), .text("Byron"), .text("Lovelace")])
    }

    /// A map that makes the combinations distinct is checked with its new values, and the migrated table
    /// has the constraint's UNIQUE index.
    @Test func aMapThatMakesTheCombinationsDistinctLetsTheStageRun() throws {
        let f = try MigrationFixture(Self.v1)
        defer { f.dir.cleanUp() }
        _ = try f.insert("Person", [["firstName": .string("Ada"), "lastName": .string("Lovelace"), "nickname": .string("A")],
                                    ["firstName": .string("Ada"), "lastName": .string("Lovelace"), "nickname": .string("B")]])
        let plan = try MigrationFixture.plan([Self.v1, Self.v2], ["{ map: { model: \"Person\", set: { lastName: \"lastName + (nickname ?? \\\"\\\")\" } } }"])
        _ = try f.run(plan)
        #expect(try f.column("Person", "lastName") == [.text("LovelaceA"), .text("LovelaceB")])
        let index = try f.open().database.scalar("SELECT sql FROM sqlite_master WHERE name = 'Person._unique.firstName.lastName'")
        #expect(index == .text(#"CREATE UNIQUE INDEX "Person._unique.firstName.lastName" ON "Person" ("firstName", "lastName")"#))
        #expect(try StoreVerifier.verify(f.open()).isClean)
    }

    /// Rows with nil in one of the fields never collide (SQL's NULLs are distinct, as in SwiftData).
    @Test func nilsDoNotCollide() throws {
        let v1 = schema("1.0.0", "Person: { fields: { firstName: \"string\", nickname: \"string?\" } }")
        let v2 = schema("1.1.0", "Person: { fields: { firstName: \"string\", nickname: \"string?\" }, unique: [[\"firstName\", \"nickname\"]] }")
        let f = try MigrationFixture(v1)
        defer { f.dir.cleanUp() }
        _ = try f.insert("Person", [["firstName": .string("Ada")], ["firstName": .string("Ada")]])
        _ = try f.run(try MigrationFixture.plan([v1, v2], [""]))
        #expect(try f.version() == "1.1.0")
        _ = try f.insert("Person", [["firstName": .string("Ada")]])
        #expect(try f.open().database.scalar("SELECT count(*) FROM Person") == .integer(3))
    }

    /// Dropping the constraint, or keeping it, checks nothing; the index follows the schema.
    @Test func droppingTheConstraintRemovesItsIndex() throws {
        let f = try MigrationFixture(Self.v2)
        defer { f.dir.cleanUp() }
        _ = try f.insert("Person", [["firstName": .string("Ada"), "lastName": .string("Lovelace")]])
        let v3 = schema("1.2.0", "Person: { fields: { firstName: \"string\", lastName: \"string\", nickname: \"string?\" } }")
        _ = try f.run(try MigrationFixture.plan([Self.v2, v3], [""]))
        #expect(try f.open().database.scalar("SELECT count(*) FROM sqlite_master WHERE name LIKE 'Person._unique%'") == .integer(0))
        _ = try f.insert("Person", [["firstName": .string("Ada"), "lastName": .string("Lovelace")]])
        #expect(try StoreVerifier.verify(f.open()).isClean)
    }
}
