// A trip planner written the way SwiftData's documentation writes one (its "Trips" sample and the
// Attribute, Unique, Transient, ModelContext and FetchDescriptor pages), compiled against VeinCore. What
// Vein asks for besides (a versioned schema and the container's store and app id) is marked "Vein:".
import Foundation
import VeinCore

enum TripsSchemaV1: VersionedSchema {                       // Vein: every store has a versioned schema
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Trip.self]

    @Model
    final class Trip {
        #Unique<Trip>([\.code], [\.destination, \.startDate])
        @Attribute(.unique) var name: String
        var destination: String
        var code: String
        var startDate: Date
        var endDate: Date
        @Attribute(.externalStorage) var photo: Data?
        @Attribute(.preserveValueOnDeletion) var notes: String = ""
        @Transient var isSelected: Bool = false

        init(name: String, destination: String, code: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.code = code
            self.startDate = startDate
            self.endDate = endDate
        }
    }
}
typealias Trip = TripsSchemaV1.Trip

func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_767_225_600 + Double(n) * 86_400) }  // 2026-01-01 + n days

// Vein: an in-memory store (SwiftData's isStoredInMemoryOnly) needs no key.
let container = try ModelContainer(for: TripsSchemaV1.self, at: nil, appID: "com.example.trips")
let context = container.mainContext

let trips = [
    Trip(name: "Tokyo spring", destination: "Tokyo", code: "TYO", startDate: day(80), endDate: day(90)),
    Trip(name: "Alps", destination: "Zermatt", code: "ZRM", startDate: day(20), endDate: day(27)),
    Trip(name: "Lisbon weekend", destination: "Lisbon", code: "LIS", startDate: day(40), endDate: day(42)),
    Trip(name: "Reykjavík", destination: "Reykjavík", code: "REK", startDate: day(5), endDate: day(12)),
]
trips[1].photo = Data(repeating: 7, count: 4096)
trips[1].isSelected = true
for trip in trips { context.insert(trip) }
try context.save()

// FetchDescriptor with a predicate, sort and limit.
let now = day(30)
var upcoming = FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate > now }, sortBy: [SortDescriptor(\.startDate)])
upcoming.fetchLimit = 2
print("upcoming:", try context.fetch(upcoming).map(\.name))
print("trips:", try context.fetchCount(FetchDescriptor<Trip>()))

// A transient value belongs to the instance: a fetch in another context starts from its initial value.
let other = ModelContext(container)
let alps = try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.code == "ZRM" })).first!
print("selected here:", trips[1].isSelected, "selected in another context:", alps.isSelected)
print("photo bytes:", alps.photo?.count ?? 0)                // external storage: read when first used

// Unique: inserting a trip whose code a stored trip has updates that trip (SwiftData's upsert).
context.insert(Trip(name: "Alps again", destination: "Zermatt", code: "ZRM", startDate: day(50), endDate: day(55)))
try context.save()
let zermatt = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.code == "ZRM" }))
print("trips:", try context.fetchCount(FetchDescriptor<Trip>()), "ZRM is now:", zermatt.map(\.name))

// A compound constraint: a trip to the same destination starting on the same day is the same trip.
context.insert(Trip(name: "Tokyo in bloom", destination: "Tokyo", code: "HND", startDate: day(80), endDate: day(91)))
try context.save()
let tokyo = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Tokyo" }))
print("trips:", try context.fetchCount(FetchDescriptor<Trip>()), "Tokyo is now:", tokyo.map(\.name))

// Work that reads and writes as one: a transaction.
try context.transaction {
    for trip in try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Lisbon" })) {
        trip.endDate = day(43)
        trip.notes = "one more night"
    }
}
let lisbon = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.code == "LIS" })).first!
print("Lisbon ends on day", Int((lisbon.endDate.timeIntervalSince1970 - 1_767_225_600) / 86_400), "with notes:", lisbon.notes)

// Every trip, a batch at a time.
var nights = 0
try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 2) { trip in
    nights += Int(trip.endDate.timeIntervalSince(trip.startDate) / 86_400)
}
print("nights in all:", nights)

// Delete by predicate.
try context.delete(model: Trip.self, where: #Predicate { $0.endDate < now })
try context.save()
print("left:", try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name))
