// Contacts, written the way SwiftData's documentation and tutorials write a first app: no versioned schema
// (`ModelContainer(for: Contact.self, configurations:)`), a unique `id` of the model's own, a `let`, a Codable
// struct, an enum, an import on a `@ModelActor`, a context made per call whose objects outlive it, and an
// insert of an existing id that updates the row. Nothing here is Vein's own API.
import Foundation
import VeinCore

struct Address: Codable, Hashable {
    var street: String
    var city: String
}

enum Kind: String, Codable {
    case friend, family, work
}

@Model
final class Contact {
    @Attribute(.unique) var id: UUID
    let createdAt: Date
    var name: String
    var kind: Kind
    var address: Address?
    var tags: Set<String> = []

    init(id: UUID, name: String, kind: Kind, address: Address? = nil, tags: Set<String> = [], createdAt: Date = .now) {
        self.createdAt = createdAt
        self.id = id
        self.name = name
        self.kind = kind
        self.address = address
        self.tags = tags
    }
}

@ModelActor
actor ContactImporter {
    func importContacts(_ rows: [(UUID, String, Kind)]) throws -> Int {
        for (id, name, kind) in rows {
            modelContext.insert(Contact(id: id, name: name, kind: kind))
        }
        try modelContext.save()
        return try modelContext.fetchCount(FetchDescriptor<Contact>())
    }
}

/// A context per call, as "SwiftData outside SwiftUI" writes it: the objects returned keep it alive.
func contacts(in container: ModelContainer, kind: Kind) throws -> [Contact] {
    let context = ModelContext(container)
    let descriptor = FetchDescriptor<Contact>(predicate: #Predicate { $0.kind == kind }, sortBy: [SortDescriptor(\.name)])
    return try context.fetch(descriptor)
}

func uuid(_ n: Int) -> UUID { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))! }

let container = try ModelContainer(for: Contact.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let imported = try await ContactImporter(modelContainer: container)
    .importContacts([(uuid(1), "Ada", .friend), (uuid(2), "Grace", .work), (uuid(3), "Alan", .work)])
print("imported on an actor: \(imported)")

let context = container.mainContext
let grace = try context.fetch(FetchDescriptor<Contact>(predicate: #Predicate { $0.name == "Grace" })).first!
grace.address = Address(street: "1 Navy Way", city: "Arlington")
grace.tags = ["navy", "cobol", "admiral"]
try context.save()

// An insert of a stored id updates that row, as in SwiftData.
context.insert(Contact(id: uuid(3), name: "Alan Turing", kind: .work, tags: ["enigma"]))
try context.save()
print("contacts: \(try context.fetchCount(FetchDescriptor<Contact>()))")

for contact in try contacts(in: container, kind: .work) {
    let address = contact.address.map { "\($0.street), \($0.city)" } ?? "no address"
    print("\(contact.name) [\(contact.kind.rawValue)] \(contact.id.uuidString.suffix(4)): \(address); tags \(contact.tags.sorted())")
}

let idToDelete = grace.persistentModelID
try context.delete(model: Contact.self, where: #Predicate { $0.persistentModelID == idToDelete })
try context.save()
print("after deleting Grace: \(try context.fetch(FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.name)])).map(\.name))")
let ids = Set(try context.fetch(FetchDescriptor<Contact>()).map(\.id))
print("Identifiable by their own id: \(ids.contains(uuid(1)))")
