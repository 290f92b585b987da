import Foundation
import Testing
import Vein
import VeinCore

/// Any Codable or RawRepresentable field, and relationships inferred from the type (PetStoreSchema.swift).
@Suite struct SwiftDataFieldTypesTests {
    static let app = "com.example.petstore"

    static func open(_ folder: String) throws -> ModelContainer {
        try ModelContainer(for: PetStore.self, at: "\(folder)/pets.vein", appID: app, keyProvider: ModelContainerTests.keys(folder))
    }

    @Test func theManifestDescribesEachShape() throws {
        let text = try PetStore.manifest(appID: Self.app).canonicalText
        #expect(text == #"{"app":"com.example.petstore","models":{"Person":{"fields":{"name":{"type":"string"},"status":{"type":"string"},"#
            + #""address":{"optional":true,"type":"json"},"website":{"optional":true,"type":"json"},"nicknames":{"type":"json"},"#
            + #""scores":{"type":"json"},"luckyNumbers":{"type":"json"},"contact":{"optional":true,"type":"json"}},"#
            + #""relationships":{"pets":{"deleteRule":"cascade","inverse":"owner","many":true,"to":"Pet"}}},"#
            + #""Pet":{"fields":{"name":{"type":"string"},"size":{"type":"enum","values":[1,2]}},"relationships":{"owner":{"inverse":"pets","to":"Person"}}},"#
            + #""Shelter":{"fields":{"name":{"type":"string"}},"relationships":{"residents":{"many":true,"to":"Pet"},"manager":{"to":"Person"}}}},"#
            + #""vein":1,"version":"1.0.0"}"#)
    }

    @Test func codableAndRawValueFieldsRoundTripThroughTheStore() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try Self.open(folder)
        let person = PetStore.Person(name: "Ada", status: .archived, address: .init(street: "1 Main St", city: "Springfield"))
        person.website = URL(string: "https://example.com/ada")
        person.nicknames = ["Countess", "Ada", "Enchantress"]
        person.scores = ["math": 10, "poetry": 7]
        person.luckyNumbers = [3, 1, 2]
        person.contact = .phone(number: "555-0100")
        container.context.insert(person)
        try container.context.save()

        let other = try Self.open(folder)
        let read = try #require(try other.context.fetch(PetStore.Person.self).first)
        #expect(read.status == .archived)
        #expect(read.address == .init(street: "1 Main St", city: "Springfield"))
        #expect(read.website == URL(string: "https://example.com/ada"))
        #expect(read.nicknames == ["Ada", "Countess", "Enchantress"])
        #expect(read.scores == ["math": 10, "poetry": 7])
        #expect(read.luckyNumbers == [3, 1, 2])
        #expect(read.contact == .phone(number: "555-0100"))
        let archived = PetStore.Status.archived
        #expect(try other.context.fetch(FetchDescriptor(predicate: #Predicate<PetStore.Person> { $0.status == archived })).count == 1)
        #expect(try other.context.fetchCount(PetStore.Person.self, where: #"status == "archived""#) == 1)
    }

    /// The throwing `value(of:)` and `setValue(_:for:)` take every field type the accessors take: a `Set`, a
    /// Codable struct, `URL`, an enum with a raw value, optional or not (they took `FieldValue`s only).
    @Test func throwingAccessTakesCodableAndRawValueFields() throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: Self.app)
        let person = PetStore.Person(name: "Ada")
        #expect(try person.value(of: \.address) == nil, "an optional the initializer gave nil, before insert")
        try person.setValue(["b", "a"], for: \.nicknames)
        try person.setValue(.archived, for: \.status)
        try person.setValue(PetStore.Address(street: "1 Main St", city: "Springfield"), for: \.address)
        try person.setValue(URL(string: "https://example.com/ada"), for: \.website)
        container.context.insert(person)
        try container.context.save()
        let read = try #require(try ModelContext(container).fetch(PetStore.Person.self).first)
        #expect(try read.value(of: \.nicknames) == ["a", "b"])
        #expect(try read.value(of: \.status) == .archived)
        #expect(try read.value(of: \.address) == PetStore.Address(street: "1 Main St", city: "Springfield"))
        #expect(try read.value(of: \.website) == URL(string: "https://example.com/ada"))
        #expect(try read.value(of: \.contact) == nil)
        let pet = PetStore.Pet(name: "Rex", size: .large)
        try pet.setValue(.small, for: \.size)
        #expect(try pet.value(of: \.size) == .small)
    }

    /// A set is stored in sorted order whatever its hash order, so an export is the same bytes in every
    /// process, and so are a dictionary's keys.
    @Test func setsAndDictionariesAreStoredInSortedOrder() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try Self.open(folder)
        let person = PetStore.Person(name: "Ada")
        person.nicknames = Set(["zeta", "alpha", "mu", "beta", "omega", "gamma"])
        person.scores = ["z": 1, "a": 2, "m": 3]
        container.context.insert(person)
        try container.context.save()
        let export = try Self.export(container.store, folder: folder)
        #expect(export.contains(#""nicknames":["alpha","beta","gamma","mu","omega","zeta"],"scores":{"a":2,"m":3,"z":1}"#), "\(export)")
    }

    static func export(_ store: Store, folder: String) throws -> String {
        let path = "\(folder)/export.jsonl"
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        _ = try StoreExporter(store: store).export(to: descriptor, name: path)
        Glibc.close(descriptor)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// A save writes the columns that changed: another context's change to a Codable field survives this
    /// context's change of the name.
    @Test func aChangeOfAnotherFieldLeavesTheCodableFieldAsStored() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try Self.open(folder)
        let person = PetStore.Person(name: "Ada", address: .init(street: "1 Main St", city: "Springfield"))
        person.nicknames = ["b", "a"]
        container.context.insert(person)
        try container.context.save()
        person.nicknames = ["a", "b"]
        #expect(person.address?.city == "Springfield")
        person.name = "Ada Lovelace"
        try container.context.save()

        let other = try Self.open(folder)
        let read = try #require(try other.context.fetch(PetStore.Person.self).first)
        #expect(read.name == "Ada Lovelace")
        #expect(read.address == .init(street: "1 Main St", city: "Springfield"))
        #expect(read.nicknames == ["a", "b"])
    }

    @Test func inferredToOneAndOptionalToManyKeepTheirInverseAndCascade() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try Self.open(folder)
        let ada = PetStore.Person(name: "Ada")
        let rex = PetStore.Pet(name: "Rex", size: .large)
        let tom = PetStore.Pet(name: "Tom")
        container.context.insert(ada)
        rex.owner = ada
        ada.pets?.append(tom)
        let shelter = PetStore.Shelter(name: "Happy Tails")
        shelter.residents = [rex]
        shelter.manager = ada
        container.context.insert(shelter)
        try container.context.save()
        #expect(Set(ada.pets?.map(\.name) ?? []) == ["Rex", "Tom"])
        #expect(tom.owner === ada)

        let other = try Self.open(folder)
        let person = try #require(try other.context.fetch(PetStore.Person.self).first)
        #expect(Set(person.pets?.map(\.name) ?? []) == ["Rex", "Tom"])
        let read = try #require(try other.context.fetch(PetStore.Shelter.self).first)
        #expect(read.residents?.map(\.name) == ["Rex"])
        #expect(read.manager === person)
        let large = PetStore.Size.large
        #expect(try other.context.fetch(FetchDescriptor(predicate: #Predicate<PetStore.Pet> { $0.size == large })).map(\.name) == ["Rex"])

        other.context.delete(person)
        try other.context.save()
        #expect(try other.context.fetchCount(PetStore.Pet.self) == 0)
        #expect(read.residents?.isEmpty == true)
        #expect(read.manager == nil)
    }
}
