import Foundation
import VeinCore

/// The models of the typed differential test: every field type a `#Predicate` compares, optionals of
/// them, an enum, a to-many with an inverse (a to-one hop from the other side).
enum DiffSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [DiffItem.self, DiffTag.self]
}

@Model
final class DiffItem {
    var n: Int
    var no: Int?
    var s: String
    var so: String?
    var d: Double
    var dopt: Double?
    var b: Bool
    var bo: Bool?
    var dt: Date
    var dto: Date?
    var u: UUID
    var kind: DiffKind

    @Relationship(inverse: \DiffTag.item, deleteRule: .cascade)
    var tags: [DiffTag] = []

    init(n: Int, no: Int?, s: String, so: String?, d: Double, dopt: Double?, b: Bool, bo: Bool?, dt: Date, dto: Date?,
         u: UUID, kind: DiffKind) {
        self.n = n
        self.no = no
        self.s = s
        self.so = so
        self.d = d
        self.dopt = dopt
        self.b = b
        self.bo = bo
        self.dt = dt
        self.dto = dto
        self.u = u
        self.kind = kind
    }
}

@Model
final class DiffTag {
    @Relationship
    var item: DiffItem?
    var v: Int
    var t: String?

    init(v: Int, t: String?) {
        self.v = v
        self.t = t
    }
}

enum DiffKind: String, RawRepresentablePersistable, Codable, Sendable {
    case alpha, beta, gamma
}

/// A seeded generator (SplitMix64): the same seed gives the same objects and constants.
struct DiffRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func pick<T>(_ list: [T]) -> T { list.randomElement(using: &self)! }
    mutating func maybe<T>(_ value: T) -> T? { Bool.random(using: &self) ? value : nil }
}

/// The pools values are drawn from: small, so equalities and ties happen; Unicode that Swift compares by
/// canonical equivalence (precomposed and decomposed é), case, empty strings, negative zero; and what
/// `localizedStandardContains` folds (case, diacritics, ß and ss).
enum DiffPools {
    static let ints = [-20, -7, -3, -1, 0, 1, 2, 3, 5, 7, 12, 20]
    static let strings = ["", "a", "A", "ab", "Ab", "b", "caf\u{e9}", "cafe\u{301}", "\u{e9}", "e\u{301}", "\u{df}", "\u{65e5}\u{672c}",
                          "abc", "zz", "\u{1F3FD}",
                          "CAFE", "e", "SS"]
    static let doubles = [-1.5, -0.0, 0, 0.25, 0.5, 2, 3.75, 1e10, -1e-3]
    static let dates = [-86_400.0, 0, 1_000_000.5, 951_868_799.999999, 1_700_000_000].map(Date.init(timeIntervalSince1970:))
    static let uuids = (0..<3).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }

    static func item(_ r: inout DiffRandom) -> DiffItem {
        let item = DiffItem(n: r.pick(ints), no: r.maybe(r.pick(ints)), s: r.pick(strings), so: r.maybe(r.pick(strings)),
                            d: r.pick(doubles), dopt: r.maybe(r.pick(doubles)), b: Bool.random(using: &r), bo: r.maybe(Bool.random(using: &r)),
                            dt: r.pick(dates), dto: r.maybe(r.pick(dates)), u: r.pick(uuids), kind: r.pick(DiffKind.allCases))
        item.tags = (0..<Int.random(in: 0...3, using: &r)).map { _ in DiffTag(v: r.pick(ints), t: r.maybe(r.pick(strings))) }
        return item
    }
}

/// The constants one round's closures capture.
struct DiffConstants {
    var i1, i2, k3, lo, hi: Int
    var s1, s2, slo, shi: String
    var d1, d2, dlo, dhi: Double
    var b1: Bool
    var dt1, dt2: Date
    var kind1: DiffKind
    var u1: UUID
    var strings: [String]
    var ints: [Int]

    init(_ r: inout DiffRandom) {
        let pools = DiffPools.self
        i1 = r.pick(pools.ints); i2 = r.pick(pools.ints); k3 = r.pick(pools.ints.filter { $0 != 0 })
        let (a, b) = (r.pick(pools.ints), r.pick(pools.ints)); (lo, hi) = (min(a, b), max(a, b) + 1)
        s1 = r.pick(pools.strings); s2 = r.pick(pools.strings)
        let (x, y) = (r.pick(pools.strings), r.pick(pools.strings)); (slo, shi) = x < y ? (x, y) : (y, x)
        d1 = r.pick(pools.doubles); d2 = r.pick(pools.doubles)
        let (p, q) = (r.pick(pools.doubles), r.pick(pools.doubles)); (dlo, dhi) = (min(p, q), max(p, q))
        b1 = Bool.random(using: &r)
        dt1 = r.pick(pools.dates); dt2 = r.pick(pools.dates)
        kind1 = r.pick(DiffKind.allCases)
        u1 = r.pick(pools.uuids)
        strings = [r.pick(pools.strings), r.pick(pools.strings)]
        ints = [r.pick(pools.ints), r.pick(pools.ints), r.pick(pools.ints)]
    }
}
