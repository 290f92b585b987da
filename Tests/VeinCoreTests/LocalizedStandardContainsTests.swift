import Foundation
import Testing
import Vein
@testable import VeinCore

/// `localizedStandardContains` in a `#Predicate` (issue 19, item 12): Foundation on Linux has no
/// `build_localizedStandardContains` for the macro to call, so VeinCore supplies it. A typed fetch must
/// select what the CLI language's `localizedStandardContains` selects on the same rows, and what
/// Foundation's `evaluate` answers in memory: case- and diacritic-insensitive.
@Suite struct LocalizedStandardContainsTests {
    enum Library: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Book.self]
        @Model final class Book {
            var title: String
            var subtitle: String?
            var copies: Int
            init(title: String, subtitle: String?, copies: Int) {
                self.title = title
                self.subtitle = subtitle
                self.copies = copies
            }
        }
    }
    typealias Book = Library.Book

    static let titles = ["Café de Flore", "cafe racer", "CAFÉ", "Cafe\u{301} noir", "Straße", "STRASSE", "strasse",
                         "naïve art", "NAIVE", "Ångström", "plain", ""]
    static let searches = ["cafe", "CAFÉ", "Café", "é", "E", "strasse", "STRASSE", "ß", "naive", "angstrom", "", "zz"]

    /// Saved books and one unsaved (tested in memory by the engine), in a context of their own.
    static func library() throws -> (ModelContainer, VeinCore.ModelContext) {
        let container = try ModelContainer(for: Library.self, at: nil, appID: "com.example.library")
        for (i, title) in titles.enumerated() {
            container.context.insert(Book(title: title, subtitle: i % 3 == 0 ? nil : titles[(i + 5) % titles.count], copies: i % 4))
        }
        try container.context.save()
        let context = container.newContext()
        context.insert(Book(title: "Unsaved CAFÉ", subtitle: "straße", copies: 3))
        return (container, context)
    }

    /// The ids the CLI language's condition selects in the same context.
    static func cliIdentifiers(_ condition: String, in context: VeinCore.ModelContext) throws -> [String] {
        let manifest = context.engine.manifest
        let typed = try TypeChecker.checkPredicate(condition, model: #require(manifest.model(named: "Book")), manifest: manifest)
        return try context.engine.fetchIdentifiers(ObjectFetch(model: "Book", predicate: typed))
    }

    @Test func typedFetchesSelectWhatTheCLILanguageAndFoundationSelect() throws {
        let (container, context) = try Self.library()
        _ = container
        let all = try context.fetch(FetchDescriptor<Book>())
        for search in Self.searches {
            let atLeast = 1
            let cases: [(cli: String, predicate: Predicate<Book>)] = [
                ("title.localizedStandardContains(\"\(search)\")", #Predicate<Book> { $0.title.localizedStandardContains(search) }),
                ("subtitle?.localizedStandardContains(\"\(search)\") == true",
                 #Predicate<Book> { $0.subtitle?.localizedStandardContains(search) == true }),
                ("(subtitle ?? \"\").localizedStandardContains(\"\(search)\")",
                 #Predicate<Book> { ($0.subtitle ?? "").localizedStandardContains(search) }),
                ("title.localizedStandardContains(\"\(search)\") && copies >= 1",
                 #Predicate<Book> { $0.title.localizedStandardContains(search) && $0.copies >= atLeast }),
                ("copies == 0 || !title.localizedStandardContains(\"\(search)\")",
                 #Predicate<Book> { $0.copies == 0 || !$0.title.localizedStandardContains(search) }),
            ]
            for (cli, predicate) in cases {
                #expect(context.translates(predicate), "\(cli)")
                let foundation = try all.filter { try predicate.evaluate($0) }.map(\.persistentModelID)
                let typed = try context.fetchIdentifiers(FetchDescriptor(predicate: predicate))
                #expect(typed == foundation, "\(cli)")
                #expect(typed.map(\.key) == (try Self.cliIdentifiers(cli, in: context)), "\(cli)")
                #expect(try context.fetch(FetchDescriptor(predicate: predicate)).compactMap(\.id) == typed, "\(cli)")
                #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == typed.count, "\(cli)")
            }
        }
    }

    @Test func aLiteralSearchIgnoresCaseAndDiacritics() throws {
        let (container, context) = try Self.library()
        _ = container
        let titles = { (predicate: Predicate<Book>) in
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
        }
        #expect(try titles(#Predicate { $0.title.localizedStandardContains("cafe") })
                == ["CAFÉ", "Café de Flore", "Cafe\u{301} noir", "Unsaved CAFÉ", "cafe racer"])
        #expect(try titles(#Predicate { $0.title.localizedStandardContains("STRASSE") }) == ["STRASSE", "Straße", "strasse"])
        #expect(try titles(#Predicate { $0.title.localizedStandardContains("ß") }) == ["STRASSE", "Straße", "strasse"])
        #expect(try titles(#Predicate { $0.title.localizedStandardContains("Naive") }) == ["NAIVE", "naïve art"])
        #expect(try titles(#Predicate { $0.title.localizedStandardContains("Naive") && $0.copies == 0 }) == ["NAIVE"])
        #expect(try titles(#Predicate { $0.title.localizedStandardContains("") }) == [])
    }

    /// SQLite cannot fold case and accents as Foundation does, so the scan calls Foundation
    /// (`vein_localized_contains`): the whole condition runs in SQL, nothing is left to memory.
    @Test func theWholeConditionRunsInTheScan() throws {
        let (container, _) = try Self.library()
        let search = "cafe", atLeast = 2
        let descriptor = FetchDescriptor(predicate: #Predicate<Book> { $0.title.localizedStandardContains(search) && $0.copies >= atLeast })
        let explanation = try container.context.explain(descriptor)
        #expect(explanation.sql.hasSuffix(#"FROM "Book" WHERE (vein_localized_contains("Book"."title", ?) AND ("Book"."copies" >= ?)) ORDER BY "Book"."_id" ASC"#))
        #expect(explanation.inMemory == [])
        #expect(try container.context.fetch(descriptor).map(\.title) == ["CAFÉ", "Cafe\u{301} noir"])
    }

    @Test func theExpressionEvaluatesInMemory() throws {
        let book = Book(title: "Crème Brûlée", subtitle: nil, copies: 1)
        let search = "CREME BRULEE"
        #expect(try #Predicate<Book> { $0.title.localizedStandardContains(search) }.evaluate(book))
        #expect(try !#Predicate<Book> { $0.title.localizedStandardContains("creme brulee!") }.evaluate(book))
        #expect(try !#Predicate<Book> { $0.subtitle?.localizedStandardContains(search) == true }.evaluate(book))
        #expect(try #Predicate<Book> { $0.title.localizedStandardContains(search) }.evaluate(book)
                == book.title.localizedStandardContains(search))
    }

    @Test func theExpressionEncodesItsOperandsInOrder() throws {
        let expression = PredicateExpressions.build_localizedStandardContains(
            PredicateExpressions.Value("Crème Brûlée"), PredicateExpressions.Value("creme"))
        let data = try JSONEncoder().encode(expression)
        #expect(String(decoding: data, as: UTF8.self) == #"["Crème Brûlée","creme"]"#)
        let decoded = try JSONDecoder().decode(type(of: expression), from: data)
        #expect(decoded.root.value == "Crème Brûlée")
        #expect(decoded.other.value == "creme")
        #expect(try decoded.evaluate(PredicateBindings()))
    }

    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func anAppsSearchFieldCompilesWithVeinCoreAlone() throws {
        let result = try CompileTimeCheckTests.typecheck("""
            import Foundation
            import VeinCore

            @Model final class Note {
                var title: String
                var tag: String?
                init(title: String) { self.title = title }
            }

            func search(_ text: String, in context: ModelContext) throws -> [Note] {
                try context.fetch(FetchDescriptor(predicate: #Predicate<Note> {
                    $0.title.localizedStandardContains(text) || $0.tag?.localizedStandardContains("urgent") == true
                }))
            }
            """)
        #expect(result.errors == [])
        #expect(result.status == 0)
    }
}
