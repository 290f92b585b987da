import Foundation
import Testing
import VeinCore

/// Foundation is the oracle for `#Predicate` fetches (issue 13): seeded random objects in a store, the
/// closures of `DiffPredicates.swift` (generated Swift source, compiled with the tests) capturing seeded
/// random constants, and random sort descriptors and windows. For each, the ids `ModelContext.fetch`
/// returns must equal the objects for which Foundation's `predicate.evaluate` is true, ordered by
/// Foundation's `SortDescriptor` comparison (ties in creation order), then windowed; `fetchCount` and
/// `fetchIdentifiers` must agree. Each round runs once on saved rows and once more with unsaved changes
/// in the context (`includePendingChanges`). Counts how many closures ran in SQL and how many fell back.
///
/// `VEIN_DIFF_LONG=N` runs N rounds instead of 2; `VEIN_DIFF_SEED` sets the first round's seed.
@Suite struct TypedPredicateDifferentialTests {
    struct Tally {
        var cases = 0, translated = 0, fallback = 0, foundationThrew = 0
        var failures: [String] = []
        /// The closures that fell back to Foundation, by source text.
        var fellBack: Set<String> = []
        var ranInSQL: Set<String> = []
    }

    @Test func fetchesAgreeWithFoundation() throws {
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["VEIN_DIFF_LONG"].flatMap(Int.init) ?? 2
        let firstSeed = environment["VEIN_DIFF_SEED"].flatMap(UInt64.init) ?? 20_261_201
        var tally = Tally()
        for round in 0..<rounds {
            try runRound(seed: firstSeed &+ UInt64(round), into: &tally)
            if tally.failures.count >= 5 { break }
        }
        print("TypedPredicateDifferentialTests: \(rounds) rounds, \(tally.cases) cases, \(tally.translated) ran in SQL, "
              + "\(tally.fallback) fell back to Foundation, \(tally.foundationThrew) where Foundation threw, "
              + "\(tally.failures.count) disagreements")
        #expect(tally.failures == [])
        // Exactly the closures with no translation (`filter`) fall back; every other form the generator
        // writes runs through the engine's SQL compiler (UUID comparisons too).
        let untranslatable = { (text: String) in text.contains(".filter") }
        #expect(tally.fellBack.filter { !untranslatable($0) }.sorted() == [])
        #expect(tally.ranInSQL.filter(untranslatable).sorted() == [])
        #expect(!tally.fellBack.isEmpty)
    }

    func runRound(seed: UInt64, into tally: inout Tally) throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let container = try ModelContainer(for: DiffSchema.self, at: "\(folder)/diff.vein", appID: "test.diff",
                                           keyProvider: ModelContainerTests.keys(folder))
        var random = DiffRandom(state: seed)
        for _ in 0..<24 { container.context.insert(DiffPools.item(&random)) }
        try container.context.save()
        let constants = DiffConstants(&random)
        let context = container.newContext()
        for pass in ["saved", "unsaved changes"] {
            if pass != "saved" {
                let items = try context.fetch(FetchDescriptor<DiffItem>())
                for _ in 0..<4 {
                    let item = random.pick(items)
                    item.n = random.pick(DiffPools.ints)
                    item.so = random.maybe(random.pick(DiffPools.strings))
                }
                context.delete(random.pick(items))
                for _ in 0..<2 { context.insert(DiffPools.item(&random)) }
            }
            let label = "seed \(seed), \(pass)"
            try check(constants.itemPredicates(), sorts: Self.itemSorts, in: context, label: label, random: &random, tally: &tally)
            try check(constants.tagPredicates(), sorts: Self.tagSorts, in: context, label: label, random: &random, tally: &tally)
        }
    }

    static let itemSorts: [SortDescriptor<DiffItem>] = [
        SortDescriptor(\.n), SortDescriptor(\.so, order: .reverse), SortDescriptor(\.d), SortDescriptor(\.dto),
        SortDescriptor(\.s, order: .reverse), SortDescriptor(\.no), SortDescriptor(\.dt, order: .reverse),
    ]
    static let tagSorts: [SortDescriptor<DiffTag>] = [
        SortDescriptor(\.v), SortDescriptor(\.t, order: .reverse), SortDescriptor(\.item?.n), SortDescriptor(\.item?.s, order: .reverse),
    ]

    func check<M: PersistentModel>(_ predicates: [(String, Predicate<M>)], sorts: [SortDescriptor<M>], in context: ModelContext,
                                   label: String, random: inout DiffRandom, tally: inout Tally) throws {
        let all = try context.fetch(FetchDescriptor<M>())
        for (text, predicate) in predicates {
            let sortBy = (0..<Int.random(in: 0...2, using: &random)).map { _ in random.pick(sorts) }
            let offset = Bool.random(using: &random) ? Int.random(in: 0...5, using: &random) : nil
            let limit = Bool.random(using: &random) ? Int.random(in: 0...10, using: &random) : nil
            let expected: [M]
            do {
                expected = Self.window(Self.sorted(try all.filter { try predicate.evaluate($0) }, by: sortBy), offset: offset, limit: limit)
            } catch {
                tally.foundationThrew += 1
                continue
            }
            tally.cases += 1
            if context.translates(predicate) {
                tally.translated += 1
                tally.ranInSQL.insert(text)
            } else {
                tally.fallback += 1
                tally.fellBack.insert(text)
            }
            let descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy, fetchLimit: limit, fetchOffset: offset)
            let want = expected.map { $0.persistentModelID.key }
            do {
                let got = try context.fetch(descriptor).map { $0.persistentModelID.key }
                let count = try context.fetchCount(descriptor)
                let ids = try context.fetchIdentifiers(descriptor).map(\.key)
                if got != want || count != want.count || ids != want {
                    tally.failures.append("\(label): \(text) sort \(sortBy.count) offset \(offset ?? 0) limit \(limit ?? -1): "
                                          + "Foundation \(want), fetch \(got), count \(count), ids \(ids)")
                }
            } catch {
                tally.failures.append("\(label): \(text): Vein threw \(error), Foundation gave \(want)")
            }
        }
    }

    /// Foundation's own order (`sorted(using:)`), not a copy of Vein's: ties stay in the given (creation)
    /// order, as the standard library's sort keeps equal elements in place.
    static func sorted<M>(_ models: [M], by sortBy: [SortDescriptor<M>]) -> [M] {
        models.sorted(using: sortBy)
    }

    static func window<M>(_ models: [M], offset: Int?, limit: Int?) -> [M] {
        let start = min(offset ?? 0, models.count)
        let end = limit.map { min(models.count, start + $0) } ?? models.count
        return Array(models[start..<end])
    }
}
