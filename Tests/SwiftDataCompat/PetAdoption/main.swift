// A pet adoption app's models as SwiftData tutorials write them: enums declared `String, Codable` or `Int,
// Codable`, a Codable struct, Foundation values and collections as fields, relationships inferred from the
// type, an optional to-many with SwiftData's `@Relationship(deleteRule:inverse:)`. Vein asks for a versioned
// schema and the container's store and app id besides (marked "Vein:").
import Foundation
import VeinCore

enum Species: String, Codable { case cat, dog, rabbit }
enum Size: Int, Codable, CaseIterable { case small = 1, medium, large }
struct Address: Codable, Equatable { var street: String; var city: String }

@Model
final class Person {
    var name: String
    var address: Address?
    var website: URL?
    var languages: Set<String> = []
    @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: [Pet]? = []

    init(name: String, address: Address? = nil) {
        self.name = name
        self.address = address
        self.website = nil
    }
}

@Model
final class Pet {
    var name: String
    var species: Species
    var size: Size
    var vaccinations: [String] = []
    var owner: Person?

    init(name: String, species: Species, size: Size) {
        self.name = name
        self.species = species
        self.size = size
        self.owner = nil
    }
}

@Model
final class Shelter {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .deny) var residents: [Pet] = []

    init(name: String) { self.name = name }
}

enum AdoptionSchemaV1: VersionedSchema {                    // Vein: every store has a versioned schema
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Person.self, Pet.self, Shelter.self]
}

let container = try ModelContainer(for: AdoptionSchemaV1.self, at: nil, appID: "com.example.adoption")
let context = container.mainContext

let ana = Person(name: "Ana", address: Address(street: "Rua Augusta 1", city: "Lisbon"))
ana.website = URL(string: "https://example.com/ana")
ana.languages = ["pt", "en", "de"]
let milo = Pet(name: "Milo", species: .cat, size: .small)
milo.vaccinations = ["rabies", "fvrcp"]
let rex = Pet(name: "Rex", species: .dog, size: .large)
ana.pets = [milo, rex]
context.insert(ana)
context.insert(Pet(name: "Bun", species: .rabbit, size: .small))
try context.save()

let reader = ModelContext(container)
let person = try reader.fetch(FetchDescriptor<Person>()).first!
print("person:", person.name, "in", person.address?.city ?? "-", "at", person.website?.host ?? "-")
print("languages:", person.languages.sorted())
print("pets:", (person.pets ?? []).map(\.name).sorted())
print("owner of Milo:", try reader.fetch(FetchDescriptor<Pet>(predicate: #Predicate { $0.name == "Milo" })).first?.owner?.name ?? "none")

let cat = Species.cat
let large = Size.large
print("cats:", try reader.fetch(FetchDescriptor<Pet>(predicate: #Predicate { $0.species == cat })).map(\.name))
print("large:", try reader.fetch(FetchDescriptor<Pet>(predicate: #Predicate { $0.size == large })).map(\.name))
print("homeless:", try reader.fetch(FetchDescriptor<Pet>(predicate: #Predicate { $0.owner == nil })).map(\.name))

// Deleting the person deletes their pets (cascade); the homeless rabbit stays.
reader.delete(person)
try reader.save()
print("pets left:", try ModelContext(container).fetch(FetchDescriptor<Pet>(sortBy: [SortDescriptor(\.name)])).map(\.name))

// `insert` and `delete` do not throw, as in SwiftData: what one of them cannot do, the next save throws,
// writing nothing, and the context is as it was before that insert or delete.
let harbor = Shelter(name: "Harbor")
harbor.residents = [Pet(name: "Pip", species: .dog, size: .medium)]
context.insert(harbor)
try context.save()
func report(_ error: any Error) {
    // Vein: the row's key differs from run to run
    print("save failed:", "\(error)".replacingOccurrences(of: harbor.persistentModelID.key, with: "<key>"))
}
context.delete(harbor)                                      // it still houses Pip (.deny)
do { try context.save() } catch { report(error) }
harbor.residents = []
context.delete(harbor)
context.insert(Shelter(name: "Harbor"))                     // its name, while the deleted row still holds it
do { try context.save() } catch { report(error) }
try context.save()                                          // the delete
context.insert(Shelter(name: "Harbor"))
try context.save()
print("shelters:", try ModelContext(container).fetch(FetchDescriptor<Shelter>()).map { "\($0.name) housing \($0.residents.count)" })
