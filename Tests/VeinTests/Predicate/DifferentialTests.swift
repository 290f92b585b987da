import Foundation
import Testing
@testable import Vein

/// Every predicate compiled to SQL must select exactly the rows the in-memory evaluator (Swift's
/// semantics) selects, on the same rows: exact SQL on its own, narrowing SQL after refinement.
@Suite struct DifferentialTests {
    static let manifestText = """
        { vein: 1, app: "test.diff", version: "1.0.0", models: {
            Item: {
              fields: { s: "string", so: "string?", i: "int", io: "int?", d: "double", dopt: "double?",
                        b: "bool", bo: "bool?", dt: "date", e: { type: "enum", values: ["a", "b", "c"] },
                        u: "uuid", uo: "uuid?" },
              relationships: { parent: { to: "Item", inverse: "children" }, children: { to: "Item", many: true, inverse: "parent" } },
            } } }
        """

    /// Strings in NFC, the form Vein stores (see SQLCompiler), with the cases that trip byte-wise SQL:
    /// empty, case, accents, combining marks, emoji with modifiers, ß, CJK.
    static let strings = ["", "abc", "ABC", "Abc", "vein", "Vein", "é", "café", "e\u{301}x", "q\u{307}\u{323}", "👍🏽", "ß", "SS",
                          "日本語", "a", "b", "ab", "ba", " ", "x y", "İ", "ﬁ"].map { $0.precomposedStringWithCanonicalMapping }
    static let ints: [Int64] = [0, 1, -1, 2, 42, -42, 1000, .max, .min, 7, 3]
    static let doubles: [Double] = [0, -0.0, 0.5, 1.5, -2.25, 3, 1e300, -1e-300, 42]
    /// Stored as the store writes them (uppercase); the conditions write them in either case.
    static let uuids = ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "7B0C9E2A-1111-4222-8333-444455556666", "00000000-0000-0000-0000-000000000000"]

    struct Fixture {
        let manifest: SchemaManifest
        let model: ModelSchema
        let db: Database
        var rows: [String: [String: DatabaseValue]] = [:]
        var ids: [String] = []
    }

    static func makeFixture(rowCount: Int, rng: inout SplitMix64) throws -> Fixture {
        let manifest = try ManifestParser.parse(manifestText, file: "diff.json5")
        let db = try Database(path: ":memory:", mode: .create, key: nil)
        try db.install(SQLFunctions.self)  // the compiled conditions run on this bare connection
        for statement in SchemaDDL.createStatements(for: manifest) { try db.execute(statement) }
        var fixture = Fixture(manifest: manifest, model: manifest.model(named: "Item")!, db: db)
        let ids = (0..<rowCount).map { _ in ULID.make().description }
        var children: [String: [String]] = [:]
        var parents: [String: String] = [:]
        for id in ids where Bool.random(using: &rng) {
            let parent = ids.randomElement(using: &rng)!
            parents[id] = parent
            children[parent, default: []].append(id)
        }
        func maybe(_ v: DatabaseValue) -> DatabaseValue { Int.random(in: 0..<3, using: &rng) == 0 ? .null : v }
        for id in ids {
            var row: [String: DatabaseValue] = [:]
            row["_id"] = .text(id)
            row["s"] = .text(strings.randomElement(using: &rng)!)
            row["so"] = maybe(.text(strings.randomElement(using: &rng)!))
            row["i"] = .integer(ints.randomElement(using: &rng)!)
            row["io"] = maybe(.integer(ints.randomElement(using: &rng)!))
            row["d"] = .real(doubles.randomElement(using: &rng)!)
            row["dopt"] = maybe(.real(doubles.randomElement(using: &rng)!))
            row["b"] = .integer(Bool.random(using: &rng) ? 1 : 0)
            row["bo"] = maybe(.integer(Bool.random(using: &rng) ? 1 : 0))
            row["dt"] = .real(ISODate.round(Double(Int.random(in: -1_000_000_000...2_000_000_000, using: &rng)) + 0.25))
            row["e"] = .text(["a", "b", "c"].randomElement(using: &rng)!)
            row["u"] = .text(uuids.randomElement(using: &rng)!)
            row["uo"] = maybe(.text(uuids.randomElement(using: &rng)!))
            row["parent"] = parents[id].map(DatabaseValue.text) ?? .null
            // The evaluator's view (a to-many as its array of ids); the store keeps it through each
            // child's parent column and position (store format 2).
            row["children"] = .text(JSONWriter.string(.array((children[id] ?? []).map(JSONValue.string))))
            row["_vein_pos_children"] = parents[id].flatMap { children[$0]?.firstIndex(of: id) }.map { .integer(Int64($0 + 1)) } ?? .null
            let columns = ["_id"] + SchemaDDL.storedColumns(fixture.model, in: manifest)
            try db.execute("INSERT INTO \"Item\" (\(columns.map(SQL.quoteIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                           columns.map { row[$0]! })
            fixture.rows[id] = row
        }
        fixture.ids = ids
        return fixture
    }

    /// A random, type-correct predicate over Item, as source text.
    static func predicate(_ rng: inout SplitMix64, depth: Int = 0) -> String {
        func str() -> String {
            let s = strings.randomElement(using: &rng)!
            // Sometimes as a raw string, whose escapes take the `#`.
            let raw = Int.random(in: 0..<4, using: &rng) == 0 ? "#" : ""
            return raw + "\"" + s.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" ? String($0) : "\\\(raw)u{\(String($0.value, radix: 16))}" }.joined() + "\"" + raw
        }
        // Sometimes in another base, with separators.
        func int() -> String {
            let v = ints.filter { $0 != .min }.randomElement(using: &rng)!
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return (v < 0 ? "-0x" : "0x") + String(v.magnitude, radix: 16)
            case 1: return (v < 0 ? "-0b" : "0b") + String(v.magnitude, radix: 2)
            case 2:
                let digits = String(v.magnitude, radix: 8)
                return (v < 0 ? "-0o" : "0o") + digits.prefix(1) + "_" + digits.dropFirst()
            default: return String(v)
            }
        }
        func uuid() -> String {
            let text = uuids.randomElement(using: &rng)!
            return "UUID(uuidString: \"\(Bool.random(using: &rng) ? text.lowercased() : text)\")\(Bool.random(using: &rng) ? "!" : "")"
        }
        func dbl() -> String { "\(doubles.filter { $0.magnitude < 1e100 }.randomElement(using: &rng)!)" }
        let cmp = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &rng)!
        let eq = ["==", "!="].randomElement(using: &rng)!
        if depth < 2, Int.random(in: 0..<3, using: &rng) == 0 {
            let a = predicate(&rng, depth: depth + 1), b = predicate(&rng, depth: depth + 1)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return "(\(a) && \(b))"
            case 1: return "(\(a) || \(b))"
            default: return "!(\(a))"
            }
        }
        switch Int.random(in: 0..<45, using: &rng) {
        // UUID values, written as Swift writes them, in either case.
        case 44: return ["u \(eq) \(uuid())", "uo \(eq) \(Bool.random(using: &rng) ? "nil" : uuid())", "[\(uuid()), \(uuid())].contains(u)",
                         "[\(uuid()), nil].contains(uo)", "parent?.u \(eq) \(uuid())", "children.contains { $0.uo == \(uuid()) }",
                         "(uo ?? \(uuid())) \(eq) u"].randomElement(using: &rng)!
        // Ranges: bounds that may not form one (Swift traps), bounds read from the row, every bound type.
        case 38: return ["(\(int())...\(int())).contains(i)", "(\(int())..<\(int())).contains(io ?? \(int()))", "(\(dbl())...\(dbl())).contains(d)",
                         "(\(dbl())..<\(dbl())).contains(dopt ?? 0)", "(\(str())...\(str())).contains(s)", "(\(str())..<\(str())).contains(so ?? \(str()))",
                         "(i...\(int())).contains(\(int()))", "(-3...3).contains(i % 5)", "(\(Int.random(in: -3...3, using: &rng))...3).contains(d)",
                         "(#date(\"1970-01-01T00:00:00Z\")..<#date(\"2030-01-01T00:00:00Z\")).contains(dt)"].randomElement(using: &rng)!
        // Closures over the to-many's members, with the outer object's names beside the member's.
        case 39: return ["children.contains { $0.i \(cmp) \(int()) }", "children.contains(where: { c in c.so \(eq) \(str()) })",
                         "children.allSatisfy { $0.so \(eq) \(Bool.random(using: &rng) ? "nil" : str()) }", "children.allSatisfy { $0.bo \(eq) true }",
                         "children.filter { $0.b }.count \(cmp) \(Int.random(in: 0...2, using: &rng))", "children.filter { $0.io == nil }.isEmpty",
                         "children.contains { $0.i == i }", "children.allSatisfy { $0.children.isEmpty }",
                         "children.contains { c in c.children.contains { $0.s \(cmp) \(str()) } }"].randomElement(using: &rng)!
        // Closures that may trap: Swift stops at the first member that decides (contains, allSatisfy) or
        // evaluates them all (filter).
        case 40: return ["children.contains { $0.i + \(int()) \(cmp) \(int()) }", "children.allSatisfy { \(int()) / $0.i \(cmp) 0 }",
                         "children.filter { $0.io! > 0 }.count > 0", "children.contains { $0.io! \(cmp) \(int()) }"].randomElement(using: &rng)!
        // Optional chains: nil where the chain meets nil.
        case 41: return ["so?.count \(eq) \(Bool.random(using: &rng) ? "nil" : String(Int.random(in: 0...3, using: &rng)))",
                         "so?.hasPrefix(\(str())) == \(Bool.random(using: &rng))", "so?.isEmpty \(eq) \(["nil", "true", "false"].randomElement(using: &rng)!)",
                         "(so?.lowercased() ?? \(str())) \(eq) \(str())", "so?.contains(\(str())) != true"].randomElement(using: &rng)!
        case 42: return ["parent?.s.contains(\(str())) == true", "parent?.so?.count \(eq) \(Bool.random(using: &rng) ? "nil" : "1")",
                         "parent?.s.isEmpty \(eq) \(["nil", "true", "false"].randomElement(using: &rng)!)", "(parent?.s.count ?? -1) \(cmp) 1"].randomElement(using: &rng)!
        case 43: return "(so?.count ?? \(Int.random(in: -1...2, using: &rng))) \(cmp) \(Int.random(in: 0...3, using: &rng))"
        // Doubles that overflow to infinity, and NaN from infinity minus infinity or times zero.
        case 30: return "\(["!", ""].randomElement(using: &rng)!)(d * 1e300 * 1e300 \(["-", "*"].randomElement(using: &rng)!) (d * 1e300 * 1e300 \(["+", "*"].randomElement(using: &rng)!) \(dbl())) \(cmp) \(dbl()))"
        case 31: return "d * 1e300 * 1e300 - d * 1e300 * 1e300 \(eq) \(["nil", "0.0", "d"].randomElement(using: &rng)!)"
        case 22: return "i + \(int()) \(cmp) \(int())"  // may overflow: Swift traps, and SQL must too
        case 23: return "i \(cmp) -9223372036854775808"
        // Traps: overflow, division by zero, Int.min / -1, in every position of && and ||.
        case 24: return "i \(["*", "-", "+"].randomElement(using: &rng)!) \(int()) \(cmp) \(int())"
        case 25: return "\(int()) / i \(cmp) \(int())"
        case 26: return "i \(["/", "%"].randomElement(using: &rng)!) (io ?? \(Int.random(in: -1...1, using: &rng))) \(cmp) 0"
        case 27: return "-i \(cmp) \(int())"
        case 28: return "(io ?? 0) * i \(cmp) \(int())"
        case 29: return "i / \([-1, 0, 2].randomElement(using: &rng)!) \(cmp) \(int())"
        case 0: return "s \(cmp) \(str())"
        case 1: return "so \(eq) \(Bool.random(using: &rng) ? "nil" : str())"
        case 2: return "i \(cmp) \(int())"
        case 3: return "io \(eq) \(Bool.random(using: &rng) ? "nil" : int())"
        case 4: return "d \(cmp) \(dbl())"
        case 5: return "(dopt ?? \(dbl())) \(cmp) \(dbl())"
        case 6: return "b \(eq) \(Bool.random(using: &rng))"
        case 7: return "bo \(eq) \(["nil", "true", "false"].randomElement(using: &rng)!)"
        case 8: return "e \(eq) .\(["a", "b", "c"].randomElement(using: &rng)!)"
        case 9: return "s.\(["contains", "hasPrefix", "hasSuffix"].randomElement(using: &rng)!)(\(str()))"
        case 10: return "(so ?? \(str())).contains(\(str()))"
        case 11: return "s.lowercased() \(eq) \(str())"
        case 12: return "s.count \(cmp) \(Int.random(in: 0...4, using: &rng))"
        case 13: return "s.isEmpty"
        case 14:
            return ["[\(int()), \(int())].contains(i)", "[\(int()), nil].contains(io)", "[\(int())].contains(io)", "[nil].contains(io)",
                    "[\(str()), \(str())].contains(so)", "[\(str()), nil].contains(so)", "[i, \(int())].contains(io ?? 0)",
                    "[\(dbl()), \(dbl())].contains(dopt ?? 1.5)", "[nil, nil].contains(parent?.s)"].randomElement(using: &rng)!
        case 15: return "children.count \(cmp) \(Int.random(in: 0...3, using: &rng))"
        case 16: return "parent?.s \(eq) \(str())"
        case 17: return "parent == nil"
        // Integer-literal arithmetic in a Double context is Double arithmetic, as Swift types it.
        case 33: return "d \(cmp) \(int()) / \(["2", "3", "0", "-4"].randomElement(using: &rng)!)"
        case 34: return "(dopt ?? \(Int.random(in: -3...3, using: &rng)) / 2) \(cmp) \(dbl())"
        // Force unwraps trap on nil, in SQL as in Swift.
        case 35: return ["io! \(cmp) \(int())", "dopt! \(cmp) \(dbl())", "so! \(eq) \(str())", "bo!", "!bo! || b", "(parent?.io)! \(cmp) \(int())"].randomElement(using: &rng)!
        case 36: return "(b || io! > 0) && (\(["so!.isEmpty", "i > 0"].randomElement(using: &rng)!))"
        // The ternary: only the branch taken is evaluated (and may trap).
        case 37: return ["(b ? i : \(int())) \(cmp) \(int())", "(so == nil ? \(str()) : so!) \(eq) \(str())",
                         "(i == 0 ? 0 : \(int()) / i) \(cmp) \(int())", "(bo == nil ? nil : io) \(eq) \(Bool.random(using: &rng) ? "nil" : int())",
                         "(d > 0 ? 1 / 2 : d) \(cmp) \(dbl())", "(b ? i + \(int()) : -i) \(cmp) \(int())"].randomElement(using: &rng)!
        case 32: return "(parent?.\(["i", "io"].randomElement(using: &rng)!) ?? \(int())) \(cmp) \(int())"
        case 18: return "(i % \(Int.random(in: 1...5, using: &rng))) \(cmp) \(Int.random(in: -2...2, using: &rng))"
        case 19: return "(io ?? 0) \(cmp) \(int())"
        case 20: return "s \(cmp) so ?? \(str())"
        default: return "dt \(cmp) #date(\"\(ISODate.format(Double(Int.random(in: -1_000_000_000...2_000_000_000, using: &rng))))\")"
        }
    }

    func evaluator(_ f: Fixture, row: [String: DatabaseValue]) -> Evaluator {
        Evaluator(scope(f, row: row))
    }

    /// A row's columns, through the hop, and its children (in their order) for closures.
    func scope(_ f: Fixture, row: [String: DatabaseValue]) -> Evaluator.Scope {
        Evaluator.Scope(read: { path in
            var source = row
            if let hop = path.hop {
                guard let target = row[hop.name]?.string, let targetRow = f.rows[target] else { return .null }
                source = targetRow
            }
            return Value(source[path.column] ?? .null, type: path.storedType)
        }, members: { path in
            guard case .array(let ids) = Value(row[path.column] ?? .null, type: path.storedType) else { return [] }
            return ids.compactMap { $0.stringValue.flatMap { f.rows[$0] }.map { scope(f, row: $0) } }
        })
    }

    func run(seed: UInt64, cases: Int, rows: Int) throws {
        var rng = SplitMix64(seed: seed)
        let f = try Self.makeFixture(rowCount: rows, rng: &rng)
        var exact = 0, narrowed = 0, inMemory = 0, trapped = 0
        for _ in 0..<cases {
            let source = Self.predicate(&rng)
            let typed = try TypeChecker.checkPredicate(source, model: f.model, manifest: f.manifest)
            // The reference: Swift's semantics on every row; where Swift traps on a row there is no answer,
            // and SQL (with its refinement) must fail too.
            let expected: Result<[String], EvaluationError>
            do {
                expected = .success(try f.ids.filter { try evaluator(f, row: f.rows[$0]!).test(typed) })
            } catch {
                trapped += 1
                expected = .failure(try #require(error as? EvaluationError))
            }
            guard let fragment = SQLCompiler(table: "\"Item\"", model: f.model, manifest: f.manifest).condition(typed) else {
                inMemory += 1
                continue
            }
            let actual: Result<[String], EvaluationError>
            do {
                let candidates = try f.db.rows("SELECT _id FROM \"Item\" WHERE \(fragment.sql) ORDER BY _id", fragment.arguments).map { $0[0].string! }
                if case .success(let rows) = expected, !fragment.isExact {
                    #expect(Set(rows).isSubset(of: Set(candidates)), "narrowing SQL lost rows for: \(source)\nSQL: \(fragment.sql)")
                }
                actual = .success(fragment.isExact ? candidates : try candidates.filter { try evaluator(f, row: f.rows[$0]!).test(typed) })
            } catch {
                actual = .failure(try #require(error as? EvaluationError, "\(error) for: \(source)\nSQL: \(fragment.sql)"))
            }
            if fragment.isExact { exact += 1 } else { narrowed += 1 }
            switch (expected, actual) {
            case (.success(let e), .success(let a)): #expect(a == e, "SQL differs for: \(source)\nSQL: \(fragment.sql)")
            case (.failure, .failure): break
            default: Issue.record("Swift \(expected), SQL \(actual) for: \(source)\nSQL: \(fragment.sql)")
            }
        }
        print("differential: \(cases) predicates on \(rows) rows: \(exact) exact SQL, \(narrowed) narrowing SQL + refine, \(inMemory) in memory only; \(trapped) trap in Swift")
        // The generator must exercise the SQL path, not only the fallbacks.
        #expect(trapped > cases / 50, "the generator must reach Swift's traps: \(trapped)")
        #expect(exact > cases / 3, "exact \(exact), narrowed \(narrowed), in memory \(inMemory), trapped \(trapped)")
    }

    @Test func sqlAgreesWithSwiftSemantics() throws {
        try run(seed: 1, cases: 3000, rows: 120)
    }

    /// A longer run: `VEIN_LONG_DIFFERENTIAL=100000 swift test --filter DifferentialTests`.
    /// Reported as skipped, not passed, when the variable is unset.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["VEIN_LONG_DIFFERENTIAL"] != nil,
                   "a long run: set VEIN_LONG_DIFFERENTIAL to the number of generated cases"))
    func longRun() throws {
        let count = try #require(ProcessInfo.processInfo.environment["VEIN_LONG_DIFFERENTIAL"].flatMap(Int.init),
                                 "VEIN_LONG_DIFFERENTIAL must be a whole number")
        try run(seed: UInt64(Date().timeIntervalSince1970), cases: count, rows: 300)
    }
}
