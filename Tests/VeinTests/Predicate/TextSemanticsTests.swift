import Foundation
import Testing
@testable import Vein

/// Strings in conditions mean what they mean in Swift's `#Predicate`, on the SQL path and in memory alike
/// (docs/expressions.md): literals take the stored normal form (NFC), a literal may start with a combining or
/// extending scalar, `contains` compares Characters (and finds ""), NUL is an ordinary character.
@Suite struct TextSemanticsTests {
    static let manifestText = """
        { vein: 1, app: "test.text", version: "1.0.0", models: {
            Item: { fields: { label: "string", kind: { type: "enum", values: ["Café", "plain"] } } } } }
        """

    /// A store with one row per label, saved through a context (so text is stored as Vein stores it).
    struct Fixture {
        let dir: TempDir
        let manifest: SchemaManifest
        let model: ModelSchema
        let store: Store
        let labels: [String]

        init(_ labels: [String]) throws {
            dir = try TempDir()
            manifest = try ManifestParser.parse(TextSemanticsTests.manifestText, file: "text.json5")
            model = manifest.model(named: "Item")!
            store = try dir.plaintextStore("t.vein", manifest: manifest)
            let context = ObjectContext(store: store)
            for label in labels { _ = try context.insert("Item", ["label": .string(label), "kind": .string("Café")]) }
            try context.save()
            self.labels = labels
        }

        /// The labels a condition selects: through a fetch (SQL, refined in memory), in memory alone on
        /// the saved objects and on pending ones, and through SQL alone when SQL claims to be exact.
        func select(_ condition: String) throws -> [String] {
            let typed = try TypeChecker.checkPredicate(condition, model: model, manifest: manifest)
            let context = ObjectContext(store: store)
            func labels(_ objects: [ModelObject]) throws -> [String] { try objects.map { try $0["label"].stringValue ?? "?" }.sorted() }
            let fetched = try labels(try context.fetch(ObjectFetch(model: "Item", predicate: typed)))
            let all = try context.fetch(ObjectFetch(model: "Item"))
            let inMemory = try labels(try all.filter { try context.evaluator(for: $0).test(typed) })
            #expect(inMemory == fetched, "in memory and fetch differ for \(condition)")
            let pending = ObjectContext(store: store)
            let unsaved = try self.labels.map { try pending.insert("Item", ["label": .string($0), "kind": .string("Café")]) }
            let pendingAnswer = try labels(try unsaved.filter { try pending.evaluator(for: $0).test(typed) })
            #expect(pendingAnswer == fetched, "pending objects and saved ones differ for \(condition)")
            if let fragment = SQLCompiler(table: "\"Item\"").condition(typed), fragment.isExact {
                try store.database.install(SQLFunctions.self)  // Swift's string semantics, called by the SQL
                let rows = try store.database.rows("SELECT label FROM \"Item\" WHERE \(fragment.sql)", fragment.arguments)
                #expect(rows.map { $0[0].string ?? "?" }.sorted() == fetched, "exact SQL differs for \(condition): \(fragment.sql)")
            }
            return fetched
        }
    }

    @Test func literalsTakeTheStoredNormalForm() throws {
        let f = try Fixture(["Café", "Cafe", "x"])
        defer { f.dir.cleanUp() }
        // Typed as an escape or raw, in NFD: Swift finds "Café" equal to both.
        #expect(try f.select(#"label == "Cafe\u{301}""#) == ["Café"])
        #expect(try f.select("label == \"Cafe\u{301}\"") == ["Café"])
        #expect(try f.select(#"label != "Cafe\u{301}""#) == ["Cafe", "x"])
        #expect(try f.select(#"["Cafe\u{301}", "y"].contains(label)"#) == ["Café"])
        #expect(try f.select(#"label >= "Cafe\u{301}""#) == ["Café", "x"])
        #expect(try f.select(#"label.hasPrefix("Cafe\u{301}")"#) == ["Café"])
        #expect(try f.select(#"label.contains("fe\u{301}")"#) == ["Café"])
        // An enum value spelled another way matches the manifest's spelling, which is what is stored
        // (as given, it failed the column's CHECK on save).
        #expect(try f.select(#"kind == "Cafe\u{301}""#) == ["Cafe", "Café", "x"])
        let context = ObjectContext(store: f.store)
        _ = try context.insert("Item", ["label": .string("y"), "kind": .string("Cafe\u{301}")])
        try context.save()
        let raw = try f.store.database.rows("SELECT DISTINCT kind FROM \"Item\"").map { $0[0].string }
        #expect(raw == ["Café"], "enum text is stored as the manifest spells it")
    }

    /// Concatenation may leave NFC (`"e" + "\u{301}"` is `"é"` to Swift): SQL's `||` only when the right
    /// side cannot combine with the left, else `vein_concat`, which normalizes as Vein stores text.
    @Test func concatenationComparesAsSwiftDoes() throws {
        let f = try Fixture(["Cafe", "Caf", "Café"])
        defer { f.dir.cleanUp() }
        #expect(try f.select(#"label + "\u{301}" == "Café""#) == ["Cafe"])
        #expect(try f.select(#"label + "e\u{301}" == "Café""#) == ["Caf"])
        #expect(try f.select(#"label + "!" == "Café!""#) == ["Café"])
        let model = f.model, manifest = f.manifest
        func isExact(_ source: String) throws -> Bool? {
            SQLCompiler(table: "\"Item\"").condition(try TypeChecker.checkPredicate(source, model: model, manifest: manifest))?.isExact
        }
        #expect(try isExact(#"label + "\u{301}" == "Café""#) == true)
        #expect(try isExact(#"label + "!" == "x""#) == true)
    }

    /// A literal may start with a scalar that extends the one before it: the opening quote must not swallow it.
    @Test func literalsMayStartWithExtendingScalars() throws {
        for (source, scalars) in [("\"\u{301}\"", [0x301]), ("\"\u{200D}👩\"", [0x200D, 0x1F469]), ("\"\u{FE0F}\"", [0xFE0F]),
                                  ("\"\u{1F3FD}x\"", [0x1F3FD, 0x78]), ("\"a\u{301}\"", [0x61, 0x301])] {
            guard case .literal(.string(let text), _) = try ExpressionParser.parse(source) else {
                Issue.record("not a string: \(source)")
                continue
            }
            #expect(text.unicodeScalars.map(\.value) == scalars.map(UInt32.init), "\(source)")
        }
        // Columns stay in Characters: the caret under the second operand after a raw combining literal.
        do {
            _ = try ExpressionParser.parse("\"\u{301}\" == == 1")
            Issue.record("parsed")
        } catch {
            #expect(error.column == 6)
        }
        let f = try Fixture(["\u{301}", "é", "a\u{200D}"])
        defer { f.dir.cleanUp() }
        #expect(try f.select("label == \"\u{301}\"") == ["\u{301}"])
        #expect(try f.select("label.hasSuffix(\"\u{200D}\")") == [])
        #expect(try f.select("label.contains(\"\u{200D}\")") == [])
    }

    /// `contains` is `#Predicate`'s: Characters in a row, "" everywhere; not inside a Character.
    @Test func containsComparesCharacters() throws {
        let f = try Fixture(["", "👍🏽", "👍", "a\r\nb", "a\nb", "Cafe", "Café"])
        defer { f.dir.cleanUp() }
        #expect(try f.select(#"label.contains("")"#) == f.labels.sorted())
        #expect(try f.select(#"label.contains("🏽")"#) == [])
        #expect(try f.select(#"label.contains("👍")"#) == ["👍"])
        #expect(try f.select(#"label.contains("\n")"#) == ["a\nb"])
        #expect(try f.select(#"label.contains("\r\n")"#) == ["a\r\nb"])
        #expect(try f.select(#"label.contains("e")"#) == ["Cafe"])
        #expect(try f.select(#"label.contains("\u{301}")"#) == [])
        #expect(try f.select(#"label.starts(with: "a\r")"#) == [])
        #expect(try f.select(#"label.hasSuffix("\n")"#) == [])
        #expect(Evaluator.contains("", ""))
        #expect(!Evaluator.contains("", "a"))
        #expect(Evaluator.contains("x👍🏽y", "👍🏽y"))
    }

    /// NUL is a character like any other: bound and read with its length, measured in bytes in SQL.
    @Test func nulIsAnOrdinaryCharacter() throws {
        let f = try Fixture(["a\0b", "a", "\0", "a\0"])
        defer { f.dir.cleanUp() }
        #expect(try f.select(#"label == "a\0b""#) == ["a\0b"])
        #expect(try f.select(#"label.hasPrefix("a\0")"#) == ["a\0", "a\0b"])
        #expect(try f.select(#"label.hasSuffix("\0b")"#) == ["a\0b"])
        #expect(try f.select(#"label.hasSuffix("\0")"#) == ["\0", "a\0"])
        #expect(try f.select(#"label.contains("\0")"#) == ["\0", "a\0", "a\0b"])
        #expect(try f.select(#"label < "a\0""#) == ["\0", "a"])
        #expect(try f.select(#"label.count == 3"#) == ["a\0b"])
        #expect(try f.select(#"label.isEmpty"#) == [])
    }

    /// An enum's values are the manifest's spelling, in whatever form it is written (here NFD, with a NUL):
    /// the schema's CHECK and DEFAULT hold them whole, a literal matches them by Swift's equality, and
    /// SQL compares the stored spelling with that same spelling.
    @Test func enumValuesKeepTheManifestSpelling() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        let manifest = try ManifestParser.parse(#"""
            { vein: 1, app: "test.enum", version: "1.0.0", models: { Item: { fields: {
                kind: { type: "enum", values: ["Cafe\u0301", "a\u0000b"] }, note: { type: "string", default: "x\u0000y" } } } } }
            """#, file: "enum.json5")
        let store = try dir.plaintextStore("e.vein", manifest: manifest)
        let context = ObjectContext(store: store)
        _ = try context.insert("Item", ["kind": .string("Café")])
        _ = try context.insert("Item", ["kind": .string("a\0b")])
        try context.save()
        let model = manifest.model(named: "Item")!
        func count(_ condition: String) throws -> Int {
            try ObjectContext(store: store).fetch(ObjectFetch(model: "Item", predicate: try TypeChecker.checkPredicate(condition, model: model, manifest: manifest))).count
        }
        #expect(try count(#"kind == "Café""#) == 1)
        #expect(try count(#"kind == "Cafe\u{301}""#) == 1)
        #expect(try count(#"kind == "a\0b""#) == 1)
        #expect(try count(#"note == "x\0y""#) == 2)
        #expect(try store.database.rows("SELECT kind FROM Item ORDER BY kind").map { $0[0].string } == ["Cafe\u{301}", "a\0b"])
        #expect(throws: (any Error).self) { try store.database.execute("INSERT INTO Item (_id, kind) VALUES ('x', 'a')") }
    }
}
