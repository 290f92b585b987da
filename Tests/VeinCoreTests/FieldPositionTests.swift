import Foundation
import Testing
import Vein
import VeinCore

/// A model whose store lists the fields in another order than the class declares them: the class's
/// accessors pass each field's declared position (`@_PersistedProperty(column:)`) as a hint, and the
/// engine checks the name there, so a store made from another manifest still reads and writes each field
/// by its name.
@Model final class PositionedNote {
    var title: String
    var views: Int
    var rating: Double

    init(title: String, views: Int, rating: Double) {
        self.title = title
        self.views = views
        self.rating = rating
    }
}

@Suite struct FieldPositionTests {
    static let reordered = """
        { vein: 1, app: "positions", version: "1.0.0", models: { PositionedNote: { fields: {
          rating: "double", title: "string", views: "int" } } } }
        """

    @Test func fieldsAreReadAndWrittenByNameWhenTheStoreOrdersThemOtherwise() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/notes.vein"
        let keys = KeyOptions(environment: ["VEIN_KEY": String(repeating: "5a", count: 32)], keyring: nil)
        _ = try StoreCreator.create(at: path, manifest: try ManifestParser.parse(Self.reordered, file: "positions"),
                                    protection: .plaintext)
        let store = try Store.open(path, keys: keys)
        #expect(store.manifest.model(named: "PositionedNote")?.fields.map(\.name) == ["rating", "title", "views"])
        let context = VeinCore.ModelContext(ObjectContext(store: store))
        let note = PositionedNote(title: "first", views: 3, rating: 4.5)
        context.insert(note)
        #expect(note.title == "first" && note.views == 3 && note.rating == 4.5)
        note.views = 7
        note.title = "second"
        try context.save()

        let reader = VeinCore.ModelContext(ObjectContext(store: store))
        let fetched = try #require(try reader.fetch(VeinCore.FetchDescriptor<PositionedNote>()).first)
        #expect(fetched.title == "second" && fetched.views == 7 && fetched.rating == 4.5)
    }
}
