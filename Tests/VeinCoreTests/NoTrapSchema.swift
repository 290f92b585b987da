import Foundation
import VeinCore

/// A model with each kind of property an accessor reads differently, for NoTrapTests: required and
/// optional fields, an enum, a Codable set, required and optional lazy fields, a to-one, a to-many with
/// its generated query, and a transient property.
enum NoTrapSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Shelf.self, Book.self]

    enum Genre: String, Codable, CaseIterable { case novel, poem }

    @Model final class Shelf {
        var name: String
        @Relationship(inverse: \Book.shelf, deleteRule: .nullify) var books: [Book] = []
        init(name: String) { self.name = name }
    }

    @Model final class Book {
        var title: String
        var note: String?
        var genre: Genre
        var tags: Set<String>
        var shelf: Shelf?
        @Attribute(.externalStorage) var scan: Data
        @LazyField var pages: Int
        @LazyField var summary: String?
        @Transient var opened: Int = 0

        init(title: String) {
            self.title = title
            self.genre = .poem
            self.tags = ["b", "a"]
            self.scan = Data([1, 2, 3])
            self.pages = 12
        }
    }
}
