import Foundation
import Testing
import Vein
import VeinCore

/// SwiftData's `@Attribute` options, `#Unique` and `@Transient` on a model saved and fetched: each has its
/// effect where Vein has the concept.
@Suite struct AttributeOptionTests {
    static func container() throws -> ModelContainer {
        try ModelContainer(for: TripSchema.self, at: nil, appID: "com.example.trips")
    }

    static func trip(_ name: String, code: String) -> Trip {
        Trip(name: name, destination: "Lisbon", code: code, booking: "B-\(name)-\(code)")
    }

    @Test func theManifestSaysWhatEachOptionMeans() throws {
        let model = try #require(try TripSchema.manifest(appID: "com.example.trips").model(named: "Trip"))
        #expect(model.columnNames == ["name", "destination", "code", "photo", "booking", "notes"], "transients are not stored")
        #expect(model.fields.filter(\.isUnique).map(\.name) == ["name", "code", "booking"])
        #expect(model.fields.filter(\.isLazy).map(\.name) == ["photo"])
        #expect(model.field(named: "booking")?.renamedFrom == "reference")
    }

    @Test func aTripIsSavedAndFetched() throws {
        let container = try Self.container()
        let trip = Self.trip("Spring", code: "S1")
        trip.photo = Data([1, 2, 3])
        trip.notes = "pack light"
        container.context.insert(trip)
        try container.context.save()
        let reader = container.newContext()
        let fetched = try #require(try reader.fetch(Trip.self).first)
        #expect([fetched.name, fetched.destination, fetched.code, fetched.booking, fetched.notes]
                == ["Spring", "Lisbon", "S1", "B-Spring-S1", "pack light"])
        #expect(fetched.photo == Data([1, 2, 3]))
    }

    /// `.unique` and `#Unique` are the store's UNIQUE constraints, and the keys `upsert` finds a row by.
    @Test func eachUniqueValueFindsItsRow() throws {
        let container = try Self.container()
        container.context.insert(Self.trip("Spring", code: "S1"))
        try container.context.save()
        let kept = try Trip.upsert(Trip(name: "Spring", destination: "Porto", code: "S1", booking: "B-Spring-S1"), in: container.context)
        try container.context.save()
        #expect(kept.destination == "Porto")
        #expect(try container.context.fetchCount(Trip.self) == 1, "the upsert found the row by its unique name")

        // An insert of a stored value updates its row (as SwiftData), also when another context saved the
        // value after the insert: the save finds the row through either unique field.
        for (first, second) in [(("Autumn", "A1"), ("Autumn", "A2")), (("Winter", "W1"), ("Summer", "W1"))] {
            let one = container.newContext(), other = container.newContext()
            one.insert(Self.trip(first.0, code: first.1))
            other.insert(Self.trip(second.0, code: second.1))
            try one.save()
            try other.save()
            #expect(try container.newContext().fetch(Trip.self).filter { $0.code == second.1 }.map(\.name) == [second.0])
        }
        #expect(try container.newContext().fetchCount(Trip.self) == 3)
    }

    /// `.externalStorage` is a lazy field: a fetch leaves it out, the first read reads it (a damaged cell
    /// shows when: the fetch succeeds, the read fails).
    @Test func externalStorageIsReadOnFirstAccess() throws {
        let container = try Self.container()
        let trip = Self.trip("Spring", code: "S1")
        trip.photo = Data([9])
        container.context.insert(trip)
        try container.context.save()
        try container.store.database.execute("PRAGMA ignore_check_constraints = ON; UPDATE Trip SET photo = 'abc'; "
                                             + "PRAGMA ignore_check_constraints = OFF")
        let reader = container.newContext()
        let fetched = try #require(try reader.fetch(Trip.self).first)
        #expect(fetched.name == "Spring")
        #expect(throws: DamagedValueError.self) { try fetched.value(of: \.photo) }
    }

    /// A transient value belongs to its instance: set on one, not on another, never written to the store;
    /// a fetched instance starts with the initial value.
    @Test func aTransientValueIsKeptPerObjectAndNotStored() throws {
        let container = try Self.container()
        let spring = Self.trip("Spring", code: "S1"), summer = Self.trip("Summer", code: "S2")
        let now = Date()
        spring.isSelected = true
        spring.lastViewed = now
        #expect(!summer.isSelected && summer.lastViewed == nil)
        container.context.insert(spring)
        container.context.insert(summer)
        try container.context.save()
        #expect(spring.isSelected && spring.lastViewed == now, "kept through insert and save")
        #expect(try container.context.fetch(Trip.self).first === spring, "the context's own instance, value and all")

        let reader = container.newContext()
        let fetched = try reader.fetch(Trip.self)
        #expect(fetched.map(\.isSelected) == [false, false])
        #expect(fetched.map(\.lastViewed) == [nil, nil])
        fetched[1].isSelected = true
        #expect(fetched.map(\.isSelected) == [false, true])
        #expect(!container.context.hasChanges)
    }

    /// The model stays Sendable, so tasks share an instance, and its transient is written from several at once
    /// through the lock.
    @Test func aTransientValueIsSafeAcrossThreads() async {
        let trip = Self.trip("Spring", code: "S1")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<100 { trip.lastViewed = Date() } } }
        }
        #expect(trip.lastViewed != nil)
    }
}
