import Foundation
import Testing
import Vein
import VeinCore

private typealias Person = CompoundUniqueSchema.Person

/// `#Unique<Person>([\.firstName, \.lastName])`: the manifest's model-level `unique`, and the identity an
/// insert or an upsert finds a row by, as a single `@Unique` field is.
@Suite struct CompoundUniqueTests {
    static func container() throws -> ModelContainer {
        try ModelContainer(for: CompoundUniqueSchema.self, at: nil, appID: "com.example.people")
    }

    /// The typed manifest is the one the CLI reads: the same text parses to the same schema.
    @Test func theManifestHasTheCombinationAndTheSingleField() throws {
        let manifest = try CompoundUniqueSchema.manifest(appID: "com.example.people")
        let model = try #require(manifest.model(named: "Person"))
        #expect(model.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(model.fields.filter(\.isUnique).map(\.name) == ["email"])
        #expect(try ManifestParser.parse(manifest.canonicalText, file: "cli") == manifest)
    }

    @Test func insertingAStoredCombinationUpdatesThatRow() throws {
        let container = try Self.container()
        let context = container.context
        let ada = Person(firstName: "Ada", lastName: "Lovelace", age: 36)
        context.insert(ada)
        try context.save()

        let again = Person(firstName: "Ada", lastName: "Lovelace", age: 37)
        context.insert(again)
        context.insert(Person(firstName: "Ada", lastName: "Byron", age: 1))
        try context.save()
        #expect(again.persistentModelID == ada.persistentModelID, "the inserted instance is the row's")
        let reader = container.newContext()
        let people = try reader.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.lastName)]))
        #expect(people.map { "\($0.lastName) \($0.age)" } == ["Byron 1", "Lovelace 37"])
    }

    @Test func upsertFindsTheRowByTheCombinationAmongUnsavedRowsToo() throws {
        let container = try Self.container()
        let context = container.context
        let ada = try Person.upsert(Person(firstName: "Ada", lastName: "Lovelace", age: 36), in: context)
        let kept = try Person.upsert(Person(firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", age: 37), in: context)
        #expect(kept === ada)
        try context.save()
        let stored = try container.newContext().fetch(Person.self)
        #expect(stored.map { "\($0.firstName) \($0.lastName) \($0.email ?? "-") \($0.age)" } == ["Ada Lovelace ada@example.com 37"])
    }

    @Test func anInstanceWhoseEmailAndNamesAreTwoRowsIsRefused() throws {
        let container = try Self.container()
        let context = container.context
        let ada = Person(firstName: "Ada", lastName: "Lovelace", email: "ada@example.com")
        let byron = Person(firstName: "Ada", lastName: "Byron")
        context.insert(ada)
        context.insert(byron)
        try context.save()
        let both = Person(firstName: "Ada", lastName: "Byron", email: "ada@example.com")
        let error = try #require(throws: ModelConvenienceError.self) { try Person.upsert(both, in: context) }
        #expect(error.description == "upsert: this Person's email is the one of row \(ada.persistentModelID.key) and its firstName and "
                + "lastName the one of row \(byron.persistentModelID.key); one instance cannot be both rows: change or delete one of them first")
    }

    /// A combination another context saved after the insert is met by the save, inside its write
    /// transaction: the insert updates that row, as a combination stored before the insert does.
    @Test func aCombinationSavedMeanwhileIsUpdatedByTheSave() throws {
        let container = try Self.container()
        let context = container.context
        let mine = Person(firstName: "Ada", lastName: "Lovelace", age: 36)
        context.insert(mine)
        let other = container.newContext()
        let theirs = Person(firstName: "Ada", lastName: "Lovelace", age: 20)
        other.insert(theirs)
        try other.save()
        try context.save()
        #expect(mine.persistentModelID == theirs.persistentModelID)
        let reader = container.newContext()
        let stored = try reader.fetch(FetchDescriptor<Person>())
        #expect(stored.map(\.age) == [36])
    }
}
