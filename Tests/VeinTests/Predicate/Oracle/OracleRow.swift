import Foundation

// Plain Foundation, no Vein: this file is also compiled on its own, with generated predicates, for the
// long run of FoundationDifferentialTests (VEIN_DIFF_LONG), where Foundation evaluates out of process.

/// One row as Swift code holds it, mirroring the model `Row` of FoundationDifferentialTests. Foundation's
/// `#Predicate` evaluates on these values; Vein stores the same ones.
struct OracleRow: Sendable {
    var n: Int
    var s: String
    var so: String?
    var i: Int
    var io: Int?
    /// Small integers for arithmetic: `i` holds Int64's extremes, where arithmetic traps.
    var k: Int
    var d: Double
    var dopt: Double?
    var b: Bool
    var bo: Bool?
    var dt: Date
    var dto: Date?
    /// A to-many, in order: `Row.kids` with inverse `Kid.row` in the store.
    var kids: [OracleKid] = []
}

/// A member of `OracleRow.kids`, mirroring the model `Kid`.
struct OracleKid: Sendable {
    var v: Int
    var t: String?
}

extension OracleRow {
    /// The row as a fetch gives it back, which is what Foundation is asked about: -0.0 is 0.0 (a REAL
    /// column keeps no sign on zero, see `NormalForm.double`). Text stays as written (NFD too):
    /// Swift compares Strings and Characters by canonical equivalence, so NFC changes no answer. Dates
    /// are already at microsecond precision.
    var asStored: OracleRow {
        var row = self
        if row.d == 0 { row.d = 0 }
        if row.dopt == 0 { row.dopt = 0 }
        return row
    }
}

/// A generated predicate: its Vein text and Foundation's evaluation of it (a `#Predicate`, or a plain
/// closure for the forms `#Predicate` lacks on Linux, whose meaning is the plain closure's: docs/expressions.md).
struct OracleCase: Sendable {
    let vein: String
    let evaluate: @Sendable (OracleRow) throws -> Bool

    init(_ vein: String, _ predicate: Predicate<OracleRow>) {
        self.vein = vein
        self.evaluate = { try predicate.evaluate($0) }
    }

    init(_ vein: String, closure: @escaping @Sendable (OracleRow) -> Bool) {
        self.vein = vein
        self.evaluate = closure
    }
}

enum OracleData {
    /// Text that trips byte-wise or Character-blind code: NFD and NFC spellings of one Character, a lone
    /// combining mark, emoji with skin tones, ZWJ sequences and variation selectors, "\r\n", NUL, case.
    static let strings: [String] = [
        "", "a", "ab", "AB", "b", "e", "Café", "Cafe\u{301}", "cafe\u{301}s", "x\u{301}", "\u{301}", "é",
        "👍", "👍🏽", "🏽", "👍🏽👍", "👨\u{200D}👩\u{200D}👧", "\u{200D}", "👩", "🏳\u{FE0F}\u{200D}🌈", "a\u{FE0F}", "\u{FE0F}",
        "\r\n", "\n", "\r", "a\r\nb", "a\nb", "\0", "a\0b", "\0\0", "ß", "SS", "日本語", "İ", "ﬁ", "Z", "zz",
    ]
    static let ints: [Int] = [0, 1, -1, 2, 3, 42, -42, 1000, .max, .min, .max - 1, .min + 1]
    static let smallInts: [Int] = [0, 1, -1, 2, 3, 7, -7, 100, -100]
    static let doubles: [Double] = [0, -0.0, 0.5, -2.25, 1.5, 3, 1e300, -1e300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude,
                                    -.greatestFiniteMagnitude, 0.1, 1.0 / 3]
    /// Seconds since 1970 as stored (already at microsecond precision): both ends of the four-digit years,
    /// the epoch's neighbours, leap days, the 2^31 s and 2^33 s boundaries (past 2^33 s one Double holds
    /// more than a microsecond).
    static let dates: [Double] = [
        -62_135_596_800, -62_135_596_799.999992, 253_402_300_800, 253_402_300_799.99997, 0, 0.000001, -0.000001,
        951_782_400, 951_868_799.999999, -2_208_988_800, -2_147_483_648, -2_147_483_648.000001, 2_147_483_648.000001,
        -8_589_934_592, -8_589_934_592.000002, 8_589_934_592, 8_589_934_592.000002, 1_769_860_800.123456, 4_102_444_799.999999,
        -30_610_224_000, 32_503_680_000,
    ]

    /// The rows: each value list cycled at a different pace, so every value meets many others.
    static let rows: [OracleRow] = (0..<48).map { n in
        func pick<T>(_ list: [T], _ step: Int) -> T { list[(n * step + n / list.count) % list.count] }
        func maybe<T>(_ list: [T], _ step: Int) -> T? { (n + step) % 4 == 0 ? nil : pick(list, step) }
        // 0 to 3 kids, their values cycled at other paces.
        let kids = (0..<(n % 4)).map { j in
            OracleKid(v: smallInts[(n * 3 + j * 5) % smallInts.count], t: (n + j) % 3 == 0 ? nil : strings[(n * 7 + j * 11) % strings.count])
        }
        return OracleRow(n: n, s: pick(strings, 1), so: maybe(strings, 5), i: pick(ints, 1), io: maybe(ints, 7), k: pick(smallInts, 5),
                         d: pick(doubles, 1), dopt: maybe(doubles, 3), b: n % 2 == 0, bo: n % 3 == 0 ? nil : n % 3 == 1,
                         dt: Date(timeIntervalSince1970: pick(dates, 1)), dto: maybe(dates, 11).map { Date(timeIntervalSince1970: $0) }, kids: kids)
    }
}
