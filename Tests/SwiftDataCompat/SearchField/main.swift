// A search field over a list, written the way SwiftData tutorials write it: a #Predicate with
// localizedStandardContains on a captured search text, combined with another condition, sorted. On Linux
// Foundation has no predicate expression for localizedStandardContains; VeinCore supplies it.
import Foundation
import VeinCore

enum LibrarySchemaV1: VersionedSchema {                      // Vein: every store has a versioned schema
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Book.self]

    @Model
    final class Book {
        var title: String
        var author: String?
        var isAvailable: Bool

        init(title: String, author: String?, isAvailable: Bool = true) {
            self.title = title
            self.author = author
            self.isAvailable = isAvailable
        }
    }
}
typealias Book = LibrarySchemaV1.Book

let container = try ModelContainer(for: LibrarySchemaV1.self, at: nil, appID: "com.example.library")
let context = container.mainContext
for (title, author, available) in [("Café Society", "Jane Ré", true), ("The Cafe on the Corner", nil, true),
                                   ("CAFÉ CULTURE", "Ann Lee", false), ("Straße der Sterne", "Ute Groß", true),
                                   ("Street Food", "Bo Ström", true)] as [(String, String?, Bool)] {
    context.insert(Book(title: title, author: author, isAvailable: available))
}
try context.save()

func search(_ text: String) throws -> [String] {
    let descriptor = FetchDescriptor<Book>(
        predicate: #Predicate { book in
            book.isAvailable && (book.title.localizedStandardContains(text) || (book.author?.localizedStandardContains(text) ?? false))
        },
        sortBy: [SortDescriptor(\.title)])
    return try context.fetch(descriptor).map(\.title)
}

for text in ["cafe", "CAFÉ", "strasse", "gross", "ström", "zzz"] {
    print("\(text):", try search(text))
}
