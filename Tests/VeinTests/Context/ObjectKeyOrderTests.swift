import Foundation
import Testing
@testable import Vein

/// `ObjectKey.precedes`, the order a save hands id sets to SQLite in: the order of the ids' text for
/// ULIDs, ULIDs before other ids, and a strict order (sorting by it is deterministic). `inIDOrder`, the
/// sort a save runs, gives the same order.
@Suite struct ObjectKeyOrderTests {
    @Test func ulidsSortAsTheirTextAndOtherIdsAfterThem() {
        var random = SplitMix64(seed: 7)
        var ids = (0..<2_000).map { _ in ULID(high: random.next() >> UInt64.random(in: 0..<64, using: &random), low: random.next()).description }
        ids += ["a-key", "01ARZ3NDEKTSV4RRFFQ69G5FAV".lowercased(), "zz", ""]
        let sorted = ids.map { ObjectKey($0) }.sorted { $0.precedes($1) }.map(\.text)
        let ulids = ids.filter { ULID($0) != nil && $0 == $0.uppercased() }.sorted()
        let others = ids.filter { !(ULID($0) != nil && $0 == $0.uppercased()) }.sorted()
        #expect(sorted == ulids + others)
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            #expect(!ObjectKey(b).precedes(ObjectKey(a)), "\(b) before \(a)")
        }
        #expect(!ObjectKey("zz").precedes(ObjectKey("zz")))
    }

    @Test func sortingObjectsInIDOrderIsSortingByPrecedes() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let layout = try ObjectContext(store: f.store).layout("Tag")
        var random = SplitMix64(seed: 11)
        // ULIDs of one millisecond (equal high words), of random times, and text ids, shuffled.
        var keys = (0..<3_000).map { n -> ObjectKey in
            switch n % 3 {
            case 0: return ObjectKey(ULID(milliseconds: 1_700_000_000_000, random: (UInt16(n % 2), random.next())))
            case 1: return ObjectKey(ULID(high: random.next(), low: random.next()))
            default: return ObjectKey("imported-\(random.next() % 1_000)")
            }
        }
        keys.shuffle(using: &random)
        let objects = keys.map {
            ModelObject(key: $0, layout: layout, values: [.string("t"), .array([])], unloaded: [], state: .persisted, readAt: 0)
        }
        let expected = objects.sorted { $0.key.precedes($1.key) }.map(\.key.text)
        #expect(ObjectKey.inIDOrder(objects).map(\.key.text) == expected)
        #expect(ObjectKey.inIDOrder([ModelObject]()).isEmpty)
    }
}
