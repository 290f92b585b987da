import Foundation
import Testing
import Vein
import VeinCore

/// Models as SwiftData users write them, with a property of their own named `id`: the most common
/// SwiftData field. The row key is Vein's `_id`; the model's `id` is a field like any other.
enum OwnIDSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Person.self, Note.self]

    @Model final class Person {
        @Attribute(.unique) var id: UUID
        var name: String
        init(id: UUID, name: String) {
            self.id = id
            self.name = name
        }
    }

    @Model final class Note {
        var id: String
        var text: String
        init(id: String, text: String) {
            self.id = id
            self.text = text
        }
    }
}

@Suite struct OwnIDPropertyTests {
    typealias Person = OwnIDSchema.Person
    typealias Note = OwnIDSchema.Note

    static let ids = ["6F9619FF-8B86-D011-B42D-00CF4FC964FF", "0E3C5F12-7A2B-4C1D-9E8F-123456789ABC", "A1B2C3D4-E5F6-4789-8ABC-DEF012345678"]
        .map { UUID(uuidString: $0)! }

    @Test func aModelsOwnIDIsAFieldToFetchSortAndUpsertBy() throws {
        let container = try ModelContainer(for: OwnIDSchema.self, at: nil, appID: "com.example.people")
        let context = container.context
        for (id, name) in zip(Self.ids, ["Ada", "Brian", "Cleo"]) { context.insert(Person(id: id, name: name)) }
        context.insert(Note(id: "n-2", text: "second"))
        context.insert(Note(id: "n-1", text: "first"))
        context.insert(Note(id: "n-1", text: "again"))
        try context.save()

        let reader = container.newContext()
        let wanted = Self.ids[1]
        let found = try reader.fetch(FetchDescriptor<Person>(predicate: #Predicate { $0.id == wanted }))
        #expect(found.map(\.name) == ["Brian"] && found.first?.id == wanted)
        #expect(try reader.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.id == "n-1" })).map(\.text) == ["first", "again"])
        #expect(try reader.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.id, order: .reverse)])).map(\.text) == ["second", "first", "again"])
        #expect(try reader.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.id)])).map(\.id) == ["n-1", "n-1", "n-2"])

        // Insert-as-upsert through the unique `id`: the row with that id takes the new values.
        reader.insert(Person(id: Self.ids[0], name: "Ada Lovelace"))
        try reader.save()
        let people = try container.newContext().fetch(FetchDescriptor<Person>())
        #expect(people.map(\.name) == ["Ada Lovelace", "Brian", "Cleo"])
        #expect(people.map(\.id) == Self.ids)
    }

    /// Export writes the row key as `_id`, first, and the model's own `id` as a field.
    @Test func exportShowsTheRowKeyAndTheOwnID() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try ModelContainer(for: OwnIDSchema.self, at: nil, appID: "com.example.people")
        let person = Person(id: Self.ids[0], name: "Ada")
        container.context.insert(person)
        container.context.insert(Note(id: "n-1", text: "first"))
        try container.context.save()
        let rowKey = try #require(person._$backing.object?.id)
        let export = try SwiftDataFieldTypesTests.export(container.store, folder: folder)
        #expect(export.contains("{\"_id\":\"\(rowKey)\",\"id\":\"\(Self.ids[0].uuidString)\",\"name\":\"Ada\"}"), "\(export)")
        #expect(export.contains(",\"id\":\"n-1\",\"text\":\"first\"}"), "\(export)")
        #expect(export.hasPrefix("{\"vein\":2,"), "\(export)")
    }

    /// A store of format 2 (vein 0.1.0) is not written by a container: the error says what to run.
    @Test func aContainerRefusesAStoreOfTheFormatBefore() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("VeinCLITests/Fixtures/format2")
        for name in ["shop.vein", "shop.key"] {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(name).path, toPath: "\(folder)/\(name)")
        }
        chmod("\(folder)/shop.key", 0o600)
        let error = try #require(throws: StoreError.self) {
            try ModelContainer(for: OwnIDSchema.self, at: "\(folder)/shop.vein", appID: "com.example.shop",
                               keyProvider: KeyFileKeyProvider(path: "\(folder)/shop.key"))
        }
        #expect(error == .needsUpgrade("\(folder)/shop.vein", found: 2))
        #expect(error.description == "\(folder)/shop.vein is in store format 2, which this version of Vein reads but does not write: "
                + "convert it to format 3 first (StoreUpgrade.upgrade, which the command line's upgrade command runs)")
    }
}
