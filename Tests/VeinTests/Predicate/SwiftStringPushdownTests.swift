import Foundation
import Testing
@testable import Vein

/// The Swift-semantics pieces that once made a fetch evaluate every row in memory (case mapping,
/// Character-aware `contains`/`hasPrefix`/`hasSuffix`, `count`, `localizedStandardContains`, String `+`
/// with a non-ASCII right side, Double `/` by a value, a list whose elements can fail) now compile to
/// exact SQL calling `SwiftStringFunctions` and `SQLFunctions`: on text that trips byte-wise matching, SQL selects exactly the rows the
/// evaluator selects, nil and errors included.
@Suite struct SwiftStringPushdownTests {
    static let manifestText = """
        { vein: 1, app: "test.pushdown", version: "1.0.0", models: {
            Item: { fields: { s: "string", so: "string?", d: "double", dz: "double" } } } }
        """

    /// NFC, as Vein stores text: ß and its capitals, the dotted İ and what it lowercases to, combining
    /// marks, an emoji ZWJ sequence and its parts, CR LF (one Character), empty text.
    static let strings = ["", "ß", "ss", "SS", "Straße", "STRASSE", "i", "I", "İ", "i\u{307}", "ı", "é", "e\u{301}", "\u{301}", "É",
                          "q\u{307}\u{323}", "👨‍👩‍👧", "👨", "👩", "\u{200D}", "a\r\nb", "\r", "\n", "ﬁ", "Post number 29999", "NUMBER 2"]
        .map { $0.precomposedStringWithCanonicalMapping }
    /// As Vein stores them (no -0.0: `NormalForm.double`).
    static let doubles: [Double] = [0, 2, -1.5, 1e300, -3]

    struct Fixture {
        let manifest: SchemaManifest
        let model: ModelSchema
        let db: Database
        var rows: [[String: DatabaseValue]] = []
    }

    static func makeFixture() throws -> Fixture {
        let manifest = try ManifestParser.parse(manifestText, file: "pushdown.json5")
        let db = try Database(path: ":memory:", mode: .create, key: nil)
        try db.install(SQLFunctions.self)
        for statement in SchemaDDL.createStatements(for: manifest) { try db.execute(statement) }
        var f = Fixture(manifest: manifest, model: manifest.model(named: "Item")!, db: db)
        for (i, s) in strings.enumerated() {
            let other: DatabaseValue = i % 3 == 0 ? .null : .text(strings[(i * 7) % strings.count])
            let row: [String: DatabaseValue] = ["_id": .text(String(format: "%03d", i)), "s": .text(s), "so": other,
                                                "d": .real(doubles[i % doubles.count]), "dz": .real(doubles[(i / 2) % doubles.count])]
            let columns = row.keys.sorted()
            try db.execute("INSERT INTO \"Item\" (\(columns.map(SQL.quoteIdentifier).joined(separator: ", "))) VALUES (\(SQL.placeholders(columns.count)))",
                           columns.map { row[$0]! })
            f.rows.append(row)
        }
        return f
    }

    /// A String literal as source text, every character outside printable ASCII escaped.
    static func literal(_ s: String) -> String {
        "\"" + s.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined() + "\""
    }

    /// Every newly pushed-down piece, over every literal, on plain and optional text.
    static var predicates: [String] {
        var out: [String] = []
        for text in strings {
            let lit = literal(text)
            for method in ["contains", "hasPrefix", "hasSuffix", "localizedStandardContains"] {
                out += ["s.\(method)(\(lit))", "s.lowercased().\(method)(\(lit))", "s.uppercased().\(method)(\(lit))",
                        "so?.\(method)(\(lit)) == true", "so?.\(method)(\(lit)) == nil", "(so ?? \(lit)).\(method)(s)"]
            }
            out += ["s.lowercased() == \(lit)", "s.uppercased() != \(lit)", "s.lowercased() < \(lit)", "so?.uppercased() == \(lit)",
                    "(so?.lowercased() ?? \(lit)) == s.lowercased()", "s + \(lit) == so", "(s + \(lit)).count == 2",
                    "(s + \(lit)).hasPrefix(s)", "\(lit) + s == \(literal(text + text))"]
        }
        for n in 0...3 { out += ["s.count == \(n)", "so?.count == \(n)", "s.lowercased().count > \(n)", "s.uppercased().count == \(n)"] }
        out += ["so?.count == nil", "so?.lowercased() == nil", "d / dz > 1", "d / dz == d", "d / dz < 0", "d / dz != d / dz", "d / 0 > 0",
                // Errors inside the scan: Swift's error, from SQL as from memory.
                "so!.lowercased().contains(\"a\")", "s == \"ss\" && s.count * 9223372036854775807 > 0",
                // A list whose elements can fail: every element, then the argument, in Swift's order.
                "[so!, \"ß\"].contains(s)", "[\"ß\", s].contains(so!)", "[s.count / (s.count - 1), 2].contains(s.count)",
                "s == \"SS\" && [s.count * 9223372036854775807, so!.count].contains(1)", "s == \"SS\" && [so!.count, s.count * 9223372036854775807].contains(1)"]
        return out
    }

    func evaluator(_ row: [String: DatabaseValue]) -> Evaluator {
        Evaluator(read: { path in Value(row[path.column] ?? .null, type: path.storedType) })
    }

    @Test func sqlSelectsWhatSwiftSelects() throws {
        let f = try Self.makeFixture()
        var checked = 0
        for source in Self.predicates {
            let typed = try TypeChecker.checkPredicate(source, model: f.model, manifest: f.manifest)
            let fragment = try #require(SQLCompiler(table: "\"Item\"", model: f.model, manifest: f.manifest).condition(typed), "no SQL for: \(source)")
            #expect(fragment.isExact, "only narrows: \(source)")
            let expected = Result { try f.rows.filter { try evaluator($0).test(typed) }.map { $0["_id"]!.string! } }
            let actual = Result { try f.db.rows("SELECT _id FROM \"Item\" WHERE \(fragment.sql) ORDER BY _id", fragment.arguments).map { $0[0].string! } }
            switch (expected, actual) {
            case (.success(let e), .success(let a)): #expect(a == e, "SQL differs for: \(source)\nSQL: \(fragment.sql)")
            case (.failure(let e), .failure(let a)): #expect(a as? EvaluationError == e as? EvaluationError, "\(source)")
            default: Issue.record("Swift \(expected), SQL \(actual) for: \(source)\nSQL: \(fragment.sql)")
            }
            checked += 1
        }
        #expect(checked == Self.predicates.count)
    }

    /// Swift's answers, written out, where bytes and Characters disagree; and NULL for nil.
    @Test func functionsGiveSwiftsAnswers() throws {
        let db = try Database(path: ":memory:", mode: .create, key: nil)
        try db.install(SQLFunctions.self)
        func answer(_ sql: String, _ arguments: [DatabaseValue]) throws -> DatabaseValue { try db.scalar("SELECT " + sql, arguments) ?? .null }
        let cases: [(String, [DatabaseValue], DatabaseValue)] = [
            ("vein_contains(vein_lowercased(?), ?)", [.text("İ"), .text("i")], .integer(0)),
            ("vein_lowercased(?) = ?", [.text("İ"), .text("i\u{307}")], .integer(1)),
            ("vein_uppercased(?)", [.text("Straße")], .text("STRASSE")),
            ("vein_contains(?, ?)", [.text("👨‍👩‍👧"), .text("👨")], .integer(0)),
            ("vein_contains(?, ?)", [.text("a\r\nb"), .text("\r")], .integer(0)),
            ("vein_contains(?, ?)", [.text("a\r\nb"), .text("\r\n")], .integer(1)),
            ("vein_has_suffix(?, ?)", [.text("q\u{323}\u{307}"), .text("\u{307}")], .integer(0)),
            ("vein_count(?)", [.text("👨‍👩‍👧e\u{301}\r\n")], .integer(3)),
            ("vein_concat(?, ?)", [.text("e"), .text("\u{301}")], .text("é")),
            ("vein_contains(?, ?)", [.text(""), .text("")], .integer(1)),
            ("vein_contains(?, ?)", [.text("abc"), .null], .integer(1)),
            ("vein_contains(?, ?)", [.null, .text("a")], .null),
            ("vein_lowercased(?)", [.null], .null),
            ("vein_count(?)", [.null], .null),
            ("vein_concat(?, ?)", [.text("a"), .null], .null),
            ("vein_fdiv(?, ?)", [.real(1), .real(0)], .real(.infinity)),
            ("vein_fdiv(?, ?)", [.real(0), .real(0)], .null),
        ]
        for (sql, arguments, expected) in cases {
            #expect(try answer(sql, arguments) == expected, "\(sql) \(arguments)")
        }
    }

    /// The pushdown itself: the scan's WHERE calls Swift, and nothing is left to memory.
    @Test func explainShowsNothingLeftToMemory() throws {
        let dir = try TempDir()
        let context = ObjectContext(store: try dir.plaintextStore("b.vein", manifest: try Fixtures.blogManifest()))
        let runner = QueryRunner(context: context)
        for title in ["Post number 29999", "POST NUMBER 29999", "Post number 1"] { _ = try runner.run("insert Post(title: \(Self.literal(title)), content: \"x\")") }
        try context.save()
        for (source, function) in [(#"count Post where title.lowercased().contains("number 29999")"#, "vein_contains(vein_lowercased("),
                                   (#"Post where title.contains("number") && title.count > 13"#, "vein_count("),
                                   (#"Post where title.localizedStandardContains("NUMBER 1") limit 1"#, "vein_localized_contains(")] {
            let plan = try #require(try runner.explain(source))
            #expect(plan.sql.contains(function) && plan.inMemory.isEmpty, "\(source): \(plan.sql), \(plan.inMemory)")
        }
        let typed = try TypeChecker.checkPredicate(#"title.lowercased().contains("number 29999")"#, model: try Fixtures.blogManifest().model(named: "Post")!,
                                                   manifest: try Fixtures.blogManifest())
        #expect(try context.fetchCount(ObjectFetch(model: "Post", predicate: typed)) == 2)
    }
}
