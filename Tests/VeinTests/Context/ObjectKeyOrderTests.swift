import Foundation
import Testing
@testable import Vein

/// `ObjectKey.precedes`, the order a save hands id sets to SQLite in: the order of the ids' text for
/// ULIDs, ULIDs before other ids, and a strict order (sorting by it is deterministic).
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
}
