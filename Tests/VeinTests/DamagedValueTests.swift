import Foundation
import Testing
@testable import Vein

/// Cells another tool left with a value not of their column's type: fetch, lazy load and export refuse
/// them naming model, field and id, and the verifier reports them. Never a value nobody stored.
@Suite struct DamagedValueTests {
    static let manifest = """
        { vein: 1, app: "com.example.damage", version: "1.0.0",
          models: { Item: { fields: { title: "string", views: "int", rating: "double", flag: "bool", at: "date",
             blob: "data? lazy", tag: "uuid", kind: { type: "enum", values: ["a", "b"] },
             level: { type: "enum", values: [1, 2] }, extra: "json" },
             relationships: { parts: { to: "Item", many: true }, parent: { to: "Item" } } } } }
        """
    static let id = "01J00000000000000000000001"

    /// A store holding one sound Item, open.
    final class Fixture {
        let dir: TempDir
        let store: Store

        init() throws {
            dir = try TempDir()
            let path = dir.path("d.vein")
            _ = try StoreCreator.create(at: path, manifest: try ManifestParser.parse(DamagedValueTests.manifest, file: "m"),
                                        protection: .plaintext)
            store = try Store.open(path, keys: StoreTests.keys())
            try store.database.execute("""
                INSERT INTO "Item" VALUES ('\(DamagedValueTests.id)', 't', 3, 1.5, 1, 1767225600.0, X'0001',
                  '7B0C9E2A-1111-4222-8333-444455556666', 'a', 1, '{"x":1}', NULL)
                """)
        }

        deinit { dir.cleanUp() }

        /// Writes `value` (SQL) into `column` as the sqlite3 shell would, CHECK constraints off.
        func damage(_ column: String, _ value: String) throws {
            try store.database.execute("PRAGMA ignore_check_constraints = ON; UPDATE \"Item\" SET \"\(column)\" = \(value); PRAGMA ignore_check_constraints = OFF")
        }

        func fetch() throws { _ = try ObjectContext(store: store).fetch(ObjectFetch(model: "Item")) }

        func export() throws {
            let fd = open("/dev/null", O_WRONLY)
            defer { close(fd) }
            try StoreExporter(store: store).export(to: fd)
        }

        func problems() throws -> [String] {
            try StoreVerifier.verify(store).checks.flatMap { check in check.problems.map { "\(check.name): \($0)" } }
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let column: String, sql: String, found: String, expected: String, isWrongStorage: Bool
        var description: String { "\(column) = \(sql)" }
    }

    static let cases: [Case] = [
        Case(column: "views", sql: "'abc'", found: #"text "abc""#, expected: "int", isWrongStorage: true),
        Case(column: "views", sql: "1.5", found: "real 1.5", expected: "int", isWrongStorage: true),
        Case(column: "at", sql: "'yesterday'", found: #"text "yesterday""#, expected: "date", isWrongStorage: true),
        Case(column: "at", sql: "1e300", found: "real 1e+300", expected: "date", isWrongStorage: false),
        Case(column: "rating", sql: "'x'", found: #"text "x""#, expected: "double", isWrongStorage: true),
        Case(column: "rating", sql: "9e999", found: "real Infinity", expected: "double", isWrongStorage: false),
        Case(column: "title", sql: "X'00FF'", found: "a blob of 2 bytes", expected: "string", isWrongStorage: true),
        Case(column: "title", sql: "CAST(X'FF' AS TEXT)", found: "text that is not UTF-8", expected: "string", isWrongStorage: false),
        Case(column: "flag", sql: "2", found: "integer 2", expected: "bool", isWrongStorage: false),
        Case(column: "kind", sql: "'zzz'", found: #"text "zzz""#, expected: "enum", isWrongStorage: false),
        Case(column: "level", sql: "7", found: "integer 7", expected: "enum", isWrongStorage: false),
        Case(column: "extra", sql: "'{bad'", found: #"text "{bad""#, expected: "json", isWrongStorage: false),
        Case(column: "tag", sql: "'7b0c9e2a-1111-4222-8333-444455556666'", found: #"text "7b0c9e2a-1111-4222-8333-444455556666""#,
             expected: "uuid", isWrongStorage: false),
        Case(column: "tag", sql: "'not a uuid'", found: #"text "not a uuid""#, expected: "uuid", isWrongStorage: false),
        Case(column: "blob", sql: "'text'", found: #"text "text""#, expected: "data", isWrongStorage: true),
        // A to-many is no cell (store format 2: a link table); a to-one's column holds an id.
        Case(column: "parent", sql: "X'0001'", found: "a blob of 2 bytes", expected: "id", isWrongStorage: true),
    ]

    @Test func aSoundRowReadsAndExports() throws {
        let f = try Fixture()
        try f.fetch()
        try f.export()
        #expect(try f.problems().isEmpty)
    }

    @Test(arguments: cases) func fetchAndExportRefuseADamagedCell(_ c: Case) throws {
        let f = try Fixture()
        try f.damage(c.column, c.sql)
        let expected = DamagedValueError(model: "Item", field: c.column, id: Self.id, expected: c.expected, found: c.found)
        #expect(throws: expected) { try f.export() }
        if c.column == "blob" {
            // Lazy: the fetch leaves it out, the first read of it refuses it.
            let context = ObjectContext(store: f.store)
            let object = try #require(try context.fetch(ObjectFetch(model: "Item")).first)
            #expect(throws: expected) { try object["blob"] }
        } else {
            #expect(throws: expected) { try f.fetch() }
        }
    }

    @Test(arguments: cases.filter { $0.column != "parent" }) func verifyReportsADamagedCell(_ c: Case) throws {
        let f = try Fixture()
        try f.damage(c.column, c.sql)
        let what = c.isWrongStorage ? "is not of type \(c.expected)" : "is not a valid \(c.expected) value"
        #expect(try f.problems() == ["values: Item.\(c.column): 1 value \(what) (\(Self.id))"])
    }

    /// REAL affinity stores integers as REAL; a whole number in a double or date column reads exactly.
    @Test func wholeNumbersInRealColumnsAreValues() throws {
        let f = try Fixture()
        try f.damage("rating", "2")
        try f.damage("at", "0")
        let context = ObjectContext(store: f.store)
        let object = try #require(try context.fetch(ObjectFetch(model: "Item")).first)
        #expect(try object["rating"] == .double(2))
        #expect(try object["at"] == .date(0))
        #expect(try f.problems().isEmpty)
    }
}
