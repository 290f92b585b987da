import Foundation
import Testing
import Vein
import VeinCore

/// No public entry point traps on a healthy store (issue 19): each is called on instances in each state,
/// and gives a defined value or throws. A trap would end the test process, so a run that finishes proves
/// none was reached; the values each state reads are checked too.
///
/// States: never inserted; inserted, unsaved; saved; deleted before save; deleted and saved; deleted by
/// another context; rolled back (an insert, and a change); the context dropped with only the instance
/// held; the container closed; the container and its contexts dropped.
///
/// Entry points (`callEverything`, `useContext`): every field getter and setter (required, optional, enum,
/// Codable set, required and optional lazy, transient), the to-one and to-many getters and setters, the
/// generated relationship query and `related`, `persistentModelID`, `id`, `==` and `hashValue`,
/// `value(of:)` and `setValue(_:for:)`, `delete()`; ModelContext's insert, delete, save, rollback,
/// hasChanges, fetch, fetchCount, fetchIdentifiers, enumerate, transaction, model(for:),
/// registeredModel(for:), upsert; the container's newContext, context, mainContext, migrate, close.
///
/// The one trap left in an accessor, a stored value that does not fit its type (a damaged store), is
/// checked in a process of its own.
@Suite struct NoTrapTests {
    typealias Book = NoTrapSchema.Book
    typealias Shelf = NoTrapSchema.Shelf

    static func container() throws -> ModelContainer {
        try ModelContainer(for: NoTrapSchema.self, at: nil, appID: "com.example.notrap")
    }

    /// A saved book on a saved shelf, fetched by a fresh context (its lazy fields not read yet).
    static func savedBook(in container: ModelContainer) throws -> (Book, Shelf, VeinCore.ModelContext) {
        let book = Book(title: "Ariel")
        book.shelf = Shelf(name: "poetry")
        container.context.insert(book)
        try container.context.save()
        let context = container.newContext()
        let fetched = try #require(try context.fetch(Book.self).first)
        return (fetched, try #require(try context.fetch(Shelf.self).first), context)
    }

    /// Reads and then writes every property and calls every throwing accessor of `book` and `shelf`.
    static func callEverything(_ book: Book, _ shelf: Shelf) {
        _ = (book.title, book.note, book.genre, book.tags, book.shelf, book.scan, book.pages, book.summary, book.opened)
        _ = (book.persistentModelID, book.id, book.hashValue, book == book, shelf.name, shelf.books)
        _ = try? shelf.books(where: #Predicate<Book> { $0.title != "" }, sort: [SortDescriptor(\.title)])
        _ = try? shelf.related(\.books)
        _ = (try? book.value(of: \.title), try? book.value(of: \.scan), try? book.value(of: \.summary))
        _ = (try? book.value(of: \.shelf), try? shelf.value(of: \.books))
        book.title = "written"; book.note = "n"; book.genre = .novel; book.tags = ["c"]
        book.scan = Data([9]); book.pages = 1; book.summary = "s"; book.opened = 1
        book.shelf = shelf; shelf.books = [book]; book.shelf = nil; shelf.books = []
        try? book.setValue("set", for: \.title)
        try? book.setValue(shelf, for: \.shelf)
        try? shelf.setValue([book], for: \.books)
    }

    /// Calls every operation of `context` (and the per-model conveniences) with `book` and `shelf`.
    static func useContext(_ context: VeinCore.ModelContext, _ book: Book, _ shelf: Shelf) {
        _ = context.hasChanges
        _ = try? context.fetch(Book.self)
        _ = try? context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title != "" }))
        _ = try? context.fetchCount(FetchDescriptor<Book>())
        _ = try? context.fetchIdentifiers(FetchDescriptor<Book>())
        try? context.enumerate(FetchDescriptor<Book>(), batchSize: 1) { _ = $0.title }
        _ = try? context.model(for: book.persistentModelID)
        let _: Book? = context.registeredModel(for: book.persistentModelID)
        _ = try? Book.fetch(in: context)
        try? context.transaction { book.note = "in a transaction" }
        context.insert(book)
        _ = try? Book.upsert(Book(title: "another"), in: context)
        context.delete(shelf)
        try? book.delete()
        try? context.save()
        context.rollback()
        try? context.save()
    }

    /// Both: the accessors, then the context's operations, then the accessors again.
    static func callAll(_ context: VeinCore.ModelContext, _ book: Book, _ shelf: Shelf) {
        Self.callEverything(book, shelf)
        useContext(context, book, shelf)
        Self.callEverything(book, shelf)
    }

    @Test func neverInserted() throws {
        let book = Book(title: "Ariel")
        #expect(book.note == nil, "an optional never given reads nil")
        #expect(book.summary == nil)
        #expect(book.shelf == nil)
        Self.callAll(try Self.container().context, book, Shelf(name: "s"))
    }

    @Test func insertedUnsavedAndSaved() throws {
        let container = try Self.container()
        let book = Book(title: "Ariel")
        container.context.insert(book)
        #expect(book.note == nil)
        Self.callAll(container.context, book, Shelf(name: "s"))
        let (saved, shelf, context) = try Self.savedBook(in: try Self.container())
        Self.callAll(context, saved, shelf)
    }

    @Test func deletedBeforeSave() throws {
        let (book, shelf, context) = try Self.savedBook(in: try Self.container())
        context.delete(book)
        #expect(book.title == "Ariel")
        #expect(book.scan == Data([1, 2, 3]), "its row is still stored: the lazy field reads it")
        #expect(book.shelf == nil, "a deleted instance points to nothing")
        Self.callAll(context, book, shelf)
    }

    @Test func deletedAndSaved() throws {
        let (book, shelf, context) = try Self.savedBook(in: try Self.container())
        context.delete(book)
        try context.save()
        #expect(book.title == "Ariel", "its last values")
        #expect(book.scan == Data(), "a required lazy field never read, its row gone: the empty value")
        #expect(book.pages == 0)
        #expect(book.summary == nil)
        #expect(book.shelf == nil)
        book.title = "after"
        let refused = #expect(throws: ContextError.self) { try context.save() }
        #expect(refused?.description.hasPrefix("Book.title was set on Book ") == true)
        Self.callAll(context, book, shelf)
    }

    @Test func deletedByAnotherContext() throws {
        let container = try Self.container()
        let (book, shelf, context) = try Self.savedBook(in: container)
        let other = container.newContext()
        other.delete(try #require(try other.fetch(Book.self).first))
        try other.save()
        #expect(book.scan == Data(), "the row is gone before the lazy field was read")
        #expect(book.genre == .poem)
        Self.callAll(context, book, shelf)
    }

    @Test func rolledBack() throws {
        let container = try Self.container()
        let inserted = Book(title: "unsaved")
        container.context.insert(inserted)
        container.context.rollback()
        #expect(inserted.title == "unsaved")
        #expect(inserted.scan == Data([1, 2, 3]))
        Self.callAll(container.context, inserted, Shelf(name: "s"))
        let (book, shelf, context) = try Self.savedBook(in: try Self.container())
        book.genre = .novel
        context.rollback()
        #expect(book.genre == .novel, "a detached instance keeps its last values")
        #expect(book.shelf == nil)
        Self.callAll(context, book, shelf)
    }

    @Test func aWriteTheContextRefusesIsReportedBySave() throws {
        let (book, shelf, context) = try Self.savedBook(in: try Self.container())
        context.delete(book)
        book.genre = .novel
        #expect(throws: ContextError.writeToDeleted(model: "Book", id: book.persistentModelID.key, field: "genre")) {
            try context.save()
        }
        try context.save()
        context.delete(shelf)
        try context.save()
        let other = Book(title: "new")
        context.insert(other)
        other.shelf = shelf
        #expect(throws: ContextError.danglingReference(model: "Book", field: "shelf", id: shelf.persistentModelID.key)) {
            try context.save()
        }
        #expect(other.shelf == nil, "the refused link was not made")
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 1)
    }

    @Test func contextDroppedWithOnlyTheInstanceHeld() throws {
        let container = try Self.container()
        var held: (Book, Shelf)?
        do {
            let (book, shelf, _) = try Self.savedBook(in: container)
            held = (book, shelf)
        }
        let (book, shelf) = try #require(held)
        #expect(book.scan == Data([1, 2, 3]))
        #expect(book.shelf === shelf)
        Self.callEverything(book, shelf)
    }

    @Test func containerClosed() throws {
        let container = try Self.container()
        let (book, shelf, context) = try Self.savedBook(in: container)
        try container.close()
        #expect(book.title == "Ariel")
        #expect(book.scan == Data(), "a required lazy field not read before the close: the empty value")
        #expect(book.summary == nil)
        #expect(shelf.books.isEmpty, "a to-many not read before the close")
        Self.callAll(context, book, shelf)
        Self.callAll(container.newContext(), Book(title: "after"), Shelf(name: "s"))
        _ = container.context
        _ = try? container.mainContext.fetch(Book.self)
        #expect(throws: StoreError.self) { try container.migrate() }
        try container.close()
    }

    /// A write that needs the closed store is not made, and the next save says so: nothing is dropped
    /// without a word (it was dropped silently, and a later save with nothing else pending succeeded).
    @Test func aWriteAfterCloseIsReportedBySave() throws {
        let container = try Self.container()
        let (_, shelf, context) = try Self.savedBook(in: container)
        try container.close()
        shelf.books = []
        #expect(throws: StoreError.closed(container.store.path)) { try context.save() }
    }

    @Test func containerAndContextsDropped() throws {
        var held: (Book, Shelf)?
        do {
            let container = try Self.container()
            held = try { let (book, shelf, _) = try Self.savedBook(in: container); return (book, shelf) }()
        }
        let (book, shelf) = try #require(held)
        #expect(book.title == "Ariel")
        Self.callEverything(book, shelf)
    }

    /// A stored value that does not fit its type stops the program (in a process of its own here).
    @Test func aDamagedStoreStillStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let container = try ModelContainer(for: NoTrapSchema.self, at: nil, appID: "com.example.notrap")
            container.context.insert(Book(title: "Ariel"))
            try container.context.save()
            try container.store.database.execute("PRAGMA ignore_check_constraints = ON; UPDATE Book SET pages = 'abc'")
            _ = try container.newContext().fetch(Book.self).first?.pages
        }
    }
}
