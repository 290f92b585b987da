import Foundation
import Testing
@testable import Vein

/// Foundation is the oracle (docs/expressions.md, "Semantics": "the reference is Foundation's own
/// `Predicate.evaluate` on the same values"; ARCHITECTURE.md I17): generated predicates, compiled as `#Predicate` source, are
/// evaluated by Foundation on `OracleData.rows` and by Vein on a store holding the same rows, through a
/// fetch (SQL, refined in memory), through the in-memory evaluator alone, and through SQL alone when SQL
/// claims to be exact (or must be a superset when it narrows). Any disagreement fails with the predicate
/// and the rows.
///
/// `Oracle/OraclePredicates.swift` is generated with a fixed seed and committed, so `make test` compiles
/// it once with the tests. `VEIN_DIFF_LONG=N` generates N more, compiles them with swiftc and runs
/// Foundation in a child process (`VEIN_DIFF_SEED` fixes the seed). Predicates on which Swift would trap
/// (overflow, division by zero) are left out: a trap cannot be caught in-process.
@Suite struct FoundationDifferentialTests {
    static let committedSeed: UInt64 = 20_261_201
    static let committedCount = 400

    static let manifestText = """
        { vein: 1, app: "test.oracle", version: "1.0.0", models: {
            Row: { fields: { n: "int", s: "string", so: "string?", i: "int", io: "int?", k: "int", d: "double", dopt: "double?",
                             b: "bool", bo: "bool?", dt: "date", dto: "date?" },
                   relationships: { kids: { to: "Kid", many: true, inverse: "row" } } },
            Kid: { fields: { v: "int", t: "string?" }, relationships: { row: { to: "Row", inverse: "kids" } } } } }
        """

    static var oracleFolder: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Oracle") }

    /// The rows as Vein values, by column.
    static func values(_ row: OracleRow) -> [String: Value] {
        func optional<T>(_ v: T?, _ make: (T) -> Value) -> Value { v.map(make) ?? .null }
        return ["n": .int(Int64(row.n)), "s": .string(row.s), "so": optional(row.so, Value.string), "i": .int(Int64(row.i)),
                "io": optional(row.io) { .int(Int64($0)) }, "k": .int(Int64(row.k)), "d": .double(row.d),
                "dopt": optional(row.dopt, Value.double), "b": .bool(row.b), "bo": optional(row.bo, Value.bool),
                "dt": .date(row.dt.timeIntervalSince1970), "dto": optional(row.dto) { .date($0.timeIntervalSince1970) }]
    }

    /// A store holding `OracleData.rows`, written through a context as an app would write them.
    struct OracleStore {
        let dir: TempDir
        let manifest: SchemaManifest
        let model: ModelSchema
        let store: Store
        let context: ObjectContext
        let objects: [ModelObject]

        init() throws {
            dir = try TempDir()
            manifest = try ManifestParser.parse(FoundationDifferentialTests.manifestText, file: "oracle.json5")
            model = manifest.model(named: "Row")!
            store = try dir.plaintextStore("oracle.vein", manifest: manifest)
            let writer = ObjectContext(store: store)
            for row in OracleData.rows {
                let object = try writer.insert("Row", FoundationDifferentialTests.values(row))
                for kid in row.kids {
                    _ = try writer.insert("Kid", ["v": .int(Int64(kid.v)), "t": kid.t.map(Value.string) ?? .null, "row": .string(object.id)])
                }
            }
            try writer.save()
            context = ObjectContext(store: store)
            objects = try context.fetch(ObjectFetch(model: "Row"))
        }

        func rowNumbers(_ objects: [ModelObject]) throws -> [Int] {
            try objects.map { object -> Int in
                guard case .int(let n) = try object["n"] else { throw OracleFailure("no n") }
                return Int(n)
            }.sorted()
        }
    }

    struct OracleFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether Vein's in-memory evaluation traps on one of the rows as written (no store), as Swift would.
    static func veinTraps(_ typed: TypedExpression) -> Bool {
        for row in OracleData.rows {
            do { _ = try Evaluator(scope(row)).test(typed) } catch { return true }
        }
        return false
    }

    /// A row's values and its kids, for the evaluator.
    static func scope(_ row: OracleRow) -> Evaluator.Scope {
        let values = values(row)
        return Evaluator.Scope(read: { values[$0.column] ?? .null }, members: { _ in
            row.kids.map { kid in
                let kidValues: [String: Value] = ["v": .int(Int64(kid.v)), "t": kid.t.map(Value.string) ?? .null]
                return Evaluator.Scope(read: { kidValues[$0.column] ?? .null })
            }
        })
    }

    /// `count` predicates on which Vein's evaluator does not trap (Foundation would), deterministic for `seed`.
    static func generate(seed: UInt64, count: Int) throws -> (pieces: [OracleGenerator.Piece], constants: [(type: String, value: String)]) {
        let manifest = try ManifestParser.parse(manifestText, file: "oracle.json5")
        var generator = OracleGenerator(seed: seed)
        var pieces: [OracleGenerator.Piece] = []
        while pieces.count < count {
            let piece = generator.predicate()
            let typed = try TypeChecker.checkPredicate(piece.vein, model: manifest.model(named: "Row")!, manifest: manifest)
            if !veinTraps(typed) { pieces.append(piece) }
        }
        return (pieces, generator.constants)
    }

    struct Tally: CustomStringConvertible {
        var cases = 0, exactSQL = 0, narrowingSQL = 0, inMemoryOnly = 0, disagreements = 0, rowsTrue = 0
        var description: String {
            "\(cases) predicates × \(OracleData.rows.count) rows: \(disagreements) disagreements (\(exactSQL) exact SQL, \(narrowingSQL) narrowing SQL, \(inMemoryOnly) in memory only; \(rowsTrue) row answers true)"
        }
    }

    /// Compares Vein's three paths with Foundation's answer (`expected`: row numbers) for one predicate.
    static func compare(_ vein: String, expected: [Int], on f: OracleStore, _ tally: inout Tally) throws {
        tally.cases += 1
        tally.rowsTrue += expected.count
        let typed = try TypeChecker.checkPredicate(vein, model: f.model, manifest: f.manifest)
        var problems: [String] = []
        let fetched = try f.rowNumbers(try f.context.fetch(ObjectFetch(model: "Row", predicate: typed)))
        if fetched != expected { problems.append("fetch gives \(fetched)") }
        let inMemory = try f.rowNumbers(try f.objects.filter { try f.context.evaluator(for: $0).test(typed) })
        if inMemory != expected { problems.append("in-memory evaluation gives \(inMemory)") }
        if let fragment = SQLCompiler(table: "\"Row\"", model: f.model, manifest: f.manifest).condition(typed) {
            let sql = try f.context.database.rows("SELECT n FROM \"Row\" WHERE \(fragment.sql) ORDER BY n", fragment.arguments).map { Int($0[0].int64!) }
            if fragment.isExact {
                tally.exactSQL += 1
                if sql != expected { problems.append("exact SQL gives \(sql): \(fragment.sql)") }
            } else {
                tally.narrowingSQL += 1
                if !Set(expected).isSubset(of: Set(sql)) { problems.append("narrowing SQL lost rows, gives \(sql): \(fragment.sql)") }
            }
        } else {
            tally.inMemoryOnly += 1
        }
        if !problems.isEmpty {
            tally.disagreements += 1
            let detail = problems.joined(separator: "\n  ")
            Issue.record("\(vein)\n  Foundation: rows \(expected)\n  \(detail)")
        }
    }

    @Test func committedPredicatesAgreeWithFoundation() throws {
        let (pieces, constants) = try Self.generate(seed: Self.committedSeed, count: Self.committedCount)
        let source = OracleGenerator.source(pieces, constants: constants, seed: Self.committedSeed)
        let file = Self.oracleFolder.appendingPathComponent("OraclePredicates.swift")
        if ProcessInfo.processInfo.environment["VEIN_DIFF_REGENERATE"] != nil {
            try source.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == source,
                "OraclePredicates.swift is not what the generator writes: VEIN_DIFF_REGENERATE=1 swift test --filter FoundationDifferentialTests")
        let f = try OracleStore()
        defer { f.dir.cleanUp() }
        #expect(try f.rowNumbers(f.objects) == OracleData.rows.map(\.n))
        var tally = Tally()
        for oracle in OraclePredicates.cases {
            let expected = try OracleData.rows.filter { try oracle.evaluate($0.asStored) }.map(\.n)
            try Self.compare(oracle.vein, expected: expected, on: f, &tally)
        }
        print("Foundation differential (committed): \(tally)")
        #expect(tally.cases == Self.committedCount)
        #expect(tally.exactSQL > tally.cases / 4, "the generator must exercise SQL: \(tally)")
    }

    /// `VEIN_DIFF_LONG=5000 swift test --skip-build --filter FoundationDifferentialTests/longRun`
    /// Reported as skipped, not passed, when the variable is unset.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["VEIN_DIFF_LONG"] != nil,
                   "a long run: set VEIN_DIFF_LONG to the number of generated cases"))
    func longRun() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = try #require(environment["VEIN_DIFF_LONG"].flatMap(Int.init), "VEIN_DIFF_LONG must be a whole number")
        try #require(count > 0, "VEIN_DIFF_LONG must be above 0")
        let seed = environment["VEIN_DIFF_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        let (pieces, constants) = try Self.generate(seed: seed, count: count)
        let work = try TempDir()
        defer { work.cleanUp() }
        // Foundation in a child process: the rows file, the predicates in chunks (one huge file type-checks
        // slowly), and a main that prints one line of 0/1 per predicate.
        try FileManager.default.copyItem(atPath: Self.oracleFolder.appendingPathComponent("OracleRow.swift").path, toPath: work.path("OracleRow.swift"))
        let chunk = 250
        var names: [String] = []
        for (index, start) in stride(from: 0, to: pieces.count, by: chunk).enumerated() {
            let name = "OracleChunk\(index)"
            names.append(name)
            let text = OracleGenerator.source(Array(pieces[start..<min(start + chunk, pieces.count)]), constants: constants, seed: seed, name: name)
            try text.write(toFile: work.path("\(name).swift"), atomically: true, encoding: .utf8)
        }
        try """
            import Foundation
            for oracle in [\(names.map { "\($0).cases" }.joined(separator: ", "))].joined() {
                print(String(OracleData.rows.map { (try? oracle.evaluate($0.asStored)) == true ? "1" : "0" }))
            }
            """.write(toFile: work.path("main.swift"), atomically: true, encoding: .utf8)
        let swiftc = Process()
        swiftc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        swiftc.arguments = ["swiftc", "-Onone", "-o", work.path("oracle")] + (["OracleRow", "main"] + names).map { work.path("\($0).swift") }
        try swiftc.run()
        swiftc.waitUntilExit()
        try #require(swiftc.terminationStatus == 0, "swiftc failed on the generated predicates (seed \(seed))")
        let oracle = Process()
        oracle.executableURL = URL(fileURLWithPath: work.path("oracle"))
        let pipe = Pipe()
        oracle.standardOutput = pipe
        try oracle.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        oracle.waitUntilExit()
        try #require(oracle.terminationStatus == 0, "Foundation trapped on a generated predicate (seed \(seed))")
        let lines = output.split(separator: "\n")
        try #require(lines.count == pieces.count)
        let f = try OracleStore()
        defer { f.dir.cleanUp() }
        var tally = Tally()
        for (piece, line) in zip(pieces, lines) {
            let expected = zip(OracleData.rows, line).filter { $0.1 == "1" }.map(\.0.n)
            try Self.compare(piece.vein, expected: expected, on: f, &tally)
        }
        print("Foundation differential (long run, seed \(seed)): \(tally)")
    }
}
