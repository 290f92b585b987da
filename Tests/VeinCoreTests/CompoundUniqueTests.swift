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

    /// A combination another context saved after the insert is the store's to refuse, with SQLite's words
    /// naming both fields.
    @Test func aCombinationSavedMeanwhileFailsTheSave() throws {
        let container = try Self.container()
        let context = container.context
        context.insert(Person(firstName: "Ada", lastName: "Lovelace"))
        let other = container.newContext()
        other.insert(Person(firstName: "Ada", lastName: "Lovelace"))
        try other.save()
        let error = try #require(throws: ContextError.self) { try context.save() }
        #expect(error.description == "the store refused the change: UNIQUE constraint failed: Person.firstName, Person.lastName")
    }
}
