import Foundation
import Testing
@testable import Vein

/// A compound unique constraint in the store: the combination is refused twice, a nil in it collides with
/// nothing, the lookup `upsert` uses finds a row by it, and `vein verify` knows its index.
@Suite struct CompoundUniqueContextTests {
    static let manifest = """
        { vein: 1, app: "t.people", version: "1.0.0", models: {
            Person: { fields: { firstName: "string", lastName: "string", nickname: "string?" },
                      unique: [["firstName", "lastName"], ["firstName", "nickname"]] } } }
        """

    private func store(_ dir: TempDir) throws -> Store {
        try dir.plaintextStore("p.vein", manifest: try ManifestParser.parse(Self.manifest, file: "m"))
    }

    @Test func theSameCombinationIsRefusedAndOtherCombinationsAreNot() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let context = ObjectContext(store: try store(dir))
        _ = try context.insert("Person", ["firstName": .string("Ada"), "lastName": .string("Lovelace")])
        _ = try context.insert("Person", ["firstName": .string("Ada"), "lastName": .string("Byron")])
        _ = try context.insert("Person", ["firstName": .string("Augusta"), "lastName": .string("Lovelace")])
        try context.save()
        _ = try context.insert("Person", ["firstName": .string("Ada"), "lastName": .string("Lovelace")])
        #expect(throws: ContextError.constraintViolation("UNIQUE constraint failed: Person.firstName, Person.lastName")) { try context.save() }
        let violation = UniqueViolation(message: "UNIQUE constraint failed: Person.firstName, Person.lastName")
        #expect(violation?.model == "Person" && violation?.fields == ["firstName", "lastName"])
        #expect(violation?.rule == "another Person already has this firstName and lastName (firstName and lastName are unique together)")
        #expect(UniqueViolation(message: "UNIQUE constraint failed: Tag.label")?.rule == "another Tag already has this label (label is unique)")
    }

    /// As in SQL and SwiftData: NULLs are distinct in a UNIQUE index.
    @Test func aNilInTheCombinationCollidesWithNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let store = try store(dir)
        let context = ObjectContext(store: store)
        for lastName in ["Lovelace", "Byron"] { _ = try context.insert("Person", ["firstName": .string("Ada"), "lastName": .string(lastName)]) }
        try context.save()
        #expect(try store.database.scalar("SELECT count(*) FROM Person WHERE firstName = 'Ada' AND nickname IS NULL") == .integer(2))
    }

    @Test func theLookupFindsTheRowHoldingTheCombinationAsThisContextHasIt() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let context = ObjectContext(store: try store(dir))
        let ada = try context.insert("Person", ["firstName": .string("Ada"), "lastName": .string("Lovelace")])
        _ = try context.insert("Person", ["firstName": .string("Ada"), "lastName": .string("Byron")])
        try context.save()
        let fields = ["firstName", "lastName"]
        #expect(try context.storedObject("Person", unique: fields, equal: [.string("Ada"), .string("Lovelace")])?.id == ada.id)
        #expect(try context.storedObject("Person", unique: ["lastName", "firstName"], equal: [.string("Lovelace"), .string("Ada")])?.id == ada.id)
        #expect(try context.storedObject("Person", unique: fields, equal: [.string("Augusta"), .string("Lovelace")]) == nil)
        // A value an unsaved change moved away is free.
        try ada.set("lastName", .string("King"))
        #expect(try context.storedObject("Person", unique: fields, equal: [.string("Ada"), .string("Lovelace")]) == nil)
    }

    @Test func verifyReportsAMissingConstraintIndex() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let store = try store(dir)
        #expect(try StoreVerifier.verify(store).isClean)
        try store.database.execute(#"DROP INDEX "Person._unique.firstName.lastName""#)
        try store.database.execute(#"CREATE INDEX "Person._unique.firstName.lastName" ON "Person" ("firstName", "lastName")"#)
        #expect(try StoreVerifier.verify(store).checks.flatMap(\.problems)
                == ["index Person._unique.firstName.lastName is not the one the schema declares (its columns or uniqueness differ)"])
    }
}
