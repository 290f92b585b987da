import Foundation
import Testing
@testable import Vein

/// Hostile sizes: nesting is refused with a caret before anything recurses too deep, and long chains and
/// lists become SQL that SQLite accepts (or stay in memory), never SQLite's own limit errors.
@Suite struct ExpressionSizeTests {
    static func failure(_ source: String) -> ExpressionError? {
        do { _ = try ExpressionParser.parse(source); return nil } catch { return error }
    }

    @Test func nestingDeeperThan512LevelsIsAnErrorWithACaret() throws {
        let message = "the expression is nested too deeply (more than 512 levels)"
        let parentheses = String(repeating: "(", count: 5000) + "views > 1" + String(repeating: ")", count: 5000)
        let error = try #require(Self.failure(parentheses))
        #expect(error.message == message && error.column == 512)
        for source in [String(repeating: "!", count: 10_000) + "b",
                       String(repeating: "-", count: 3000) + "1 > 0",
                       String(repeating: "[", count: 3000) + "1" + String(repeating: "]", count: 3000),
                       "(" + Array(repeating: "io", count: 3000).joined(separator: " ?? ") + ") > 0",
                       Array(repeating: "i", count: 3000).joined(separator: " + ") + " > 0",
                       "s" + String(repeating: ".lowercased()", count: 3000) + " == \"\"",
                       "s.contains(" + String(repeating: "s.contains(", count: 3000)] {
            #expect(Self.failure(source)?.message == message, "\(source.prefix(30))")
        }
        // 500 levels are fine, and evaluate.
        let deep = String(repeating: "(", count: 500) + "1 > 0" + String(repeating: ")", count: 500)
        #expect(Self.failure(deep) == nil)
        #expect(Self.failure(String(repeating: "!", count: 500) + "true") == nil)
    }

    /// Every shape, at every depth the parser allows, gives SQL that SQLite prepares (or no SQL), and the
    /// same rows as the evaluator.
    @Test func compiledSQLAlwaysFitsSQLite() throws {
        var rng = SplitMix64(seed: 7)
        let f = try DifferentialTests.makeFixture(rowCount: 40, rng: &rng)
        let shapes: [(Int) -> String] = [
            { n in String(repeating: "(", count: n) + "i > 1" + String(repeating: ")", count: n) },
            { n in String(repeating: "!", count: n) + "(i > 1)" },
            { n in String(repeating: "!(", count: n) + "b" + String(repeating: ")", count: n) },
            { n in "i % 5" + String(repeating: " + 1", count: n) + " > 3" },
            { n in "1" + String(repeating: " + (1", count: n) + " + i % 5" + String(repeating: ")", count: n) + " > 3" },
            { n in String(repeating: "-(", count: n) + "(i % 5)" + String(repeating: ")", count: n) + " > 0" },
            { n in "(" + String(repeating: "io ?? (", count: n) + "i" + String(repeating: ")", count: n) + ") > 2" },
            { n in "(io ?? 0) % 7" + (0..<n).map { " * \($0 % 3)" }.joined() + " > 2" },
            { n in (0..<max(1, n)).map { "i == \($0)" }.joined(separator: " || ") },
            { n in (0..<max(1, n)).map { "i != \($0)" }.joined(separator: " && ") },
            { n in (0..<max(1, n)).map { "(i % 100) * \($0) == 3" }.joined(separator: " || ") },
            { n in "b" + String(repeating: " == (b", count: n) + String(repeating: ")", count: n) },
            { n in (0..<max(1, n)).map { "(i > \($0) && (i % 2 == 0 || s == \"\($0)\"))" }.joined(separator: " || ") },
            { n in String(repeating: "(", count: n) + "parent?.i == 3" + String(repeating: ")", count: n) },
            { n in String(repeating: "!(", count: n) + "[1, 2, 3].contains(i)" + String(repeating: ")", count: n) },
            { n in "(" + String(repeating: "io ?? (", count: n) + "children.count" + String(repeating: ")", count: n) + ") > 1" },
            { n in (0..<max(1, n)).map { "((i % 100) * 2 > \($0) && 100 / (i % 7 + 1) > 3)" }.joined(separator: " || ") },
            { n in String(repeating: "!((i % 9) * 2 > 3 && ", count: n) + "b" + String(repeating: ")", count: n) },
            { n in String(repeating: "((parent?.i ?? 1) % 3) * (", count: n) + "1" + String(repeating: ")", count: n) + " > 0" },
        ]
        var compiled = 0, inMemory = 0, deepest: [Int] = []
        for (k, shape) in shapes.enumerated() {
            deepest.append(0)
            for n in Array(1...60) + [70, 100, 200, 400, 500] {
                let source = shape(n)
                let typed: TypedExpression
                do { typed = try TypeChecker.checkPredicate(source, model: f.model, manifest: f.manifest) } catch {
                    // Two levels a step reach the parser's limit first: that refusal is tested above.
                    #expect(error.message.hasPrefix("the expression is nested too deeply"), "shape \(k) at \(n): \(error.message)")
                    continue
                }
                let memory = { (ids: [String]) in try ids.filter { try DifferentialTests().evaluator(f, row: f.rows[$0]!).test(typed) } }
                let expected = Result { try memory(f.ids) }.map { $0 }
                guard let fragment = SQLCompiler(table: "\"Item\"", model: f.model, manifest: f.manifest).condition(typed) else { inMemory += 1; continue }
                compiled += 1
                deepest[k] = n
                // Room for what callers add around a condition: a subquery, four more parameters.
                let sql = "SELECT count(*) FROM (SELECT _id FROM \"Item\" WHERE \(fragment.sql) AND ? AND ? AND ? AND ? ORDER BY _id)"
                _ = try f.db.makeStatement(sql)
                let actual = Result {
                    let rows = try f.db.rows("SELECT _id FROM \"Item\" WHERE \(fragment.sql) AND ? AND ? AND ? AND ? ORDER BY _id",
                                             fragment.arguments + [.integer(1), .integer(1), .integer(1), .integer(1)]).map { $0[0].string! }
                    return fragment.isExact ? rows : try memory(rows)
                }
                switch (expected, actual) {
                case (.success(let e), .success(let a)): #expect(a == e, "shape \(k) at \(n)")
                case (.failure(let e), .failure(let a)): #expect(e is EvaluationError && a is EvaluationError, "shape \(k) at \(n): \(a)")
                default: Issue.record("shape \(k) at \(n): Swift \(expected), SQL \(actual)")
                }
            }
        }
        print("sizes: \(compiled) compiled to SQL, \(inMemory) left to memory; deepest compiled per shape: \(deepest)")
        // The budget is not so tight that ordinary nesting leaves SQL.
        #expect(deepest.allSatisfy { $0 >= 3 })
    }

    @Test func longListsAndChainsRunInSQL() throws {
        var rng = SplitMix64(seed: 3)
        let f = try DifferentialTests.makeFixture(rowCount: 30, rng: &rng)
        for source in ["[" + (0...998).map(String.init).joined(separator: ", ") + "].contains(i)",
                       "[" + (0...800).map { "\"\($0)\"" }.joined(separator: ", ") + ", \"abc\"].contains(s)",
                       (0..<2000).map { "i == \($0)" }.joined(separator: " || "),
                       (0..<2000).map { "i != \($0)" }.joined(separator: " && "),
                       (0..<800).map { "s != \"\($0)\"" }.joined(separator: " && ")] {
            let typed = try TypeChecker.checkPredicate(source, model: f.model, manifest: f.manifest)
            guard let fragment = SQLCompiler(table: "\"Item\"").condition(typed) else {
                Issue.record("not compiled: \(source.prefix(40))")
                continue
            }
            let rows = try f.db.rows("SELECT _id FROM \"Item\" WHERE \(fragment.sql) ORDER BY _id", fragment.arguments).map { $0[0].string! }
            let expected = try f.ids.filter { try DifferentialTests().evaluator(f, row: f.rows[$0]!).test(typed) }
            #expect(fragment.isExact && rows == expected, "\(source.prefix(40))")
        }
        // Too long for one SQL statement: evaluated in memory, with the same answer.
        let huge = (0..<60_000).map { "i == \($0)" }.joined(separator: " || ")
        let typed = try TypeChecker.checkPredicate(huge, model: f.model, manifest: f.manifest)
        #expect(SQLCompiler(table: "\"Item\"").condition(typed) == nil)
        #expect(try f.ids.filter { try DifferentialTests().evaluator(f, row: f.rows[$0]!).test(typed) }.count
                == f.rows.values.filter { ($0["i"]?.int64).map { (0..<60_000).contains($0) } ?? false }.count)
    }
}
