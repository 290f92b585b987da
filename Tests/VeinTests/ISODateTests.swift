import Foundation
import Testing
@testable import Vein

/// Dates as stored (seconds since 1970, microsecond precision) and as written (ISO 8601 UTC, 6 digits).
@Suite struct ISODateTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000000Z"),
        (1_769_860_800, "2026-01-31T12:00:00.000000Z"),
        (1_769_860_800.123456, "2026-01-31T12:00:00.123456Z"),
        (951_782_400, "2000-02-29T00:00:00.000000Z"),
        (1_709_164_800, "2024-02-29T00:00:00.000000Z"),
        (4_102_444_799.999999, "2099-12-31T23:59:59.999999Z"),
        (-1, "1969-12-31T23:59:59.000000Z"),
        (-0.000001, "1969-12-31T23:59:59.999999Z"),
        (-0.5, "1969-12-31T23:59:59.500000Z"),
        (-86_400, "1969-12-31T00:00:00.000000Z"),
        (-31_536_000, "1969-01-01T00:00:00.000000Z"),
        (-14_182_940, "1969-07-20T20:17:40.000000Z"),
        (-2_208_988_800, "1900-01-01T00:00:00.000000Z"),
        (-62_135_596_800, "0001-01-01T00:00:00.000000Z"),
    ])
    func formatAndParseKnownInstants(seconds: Double, text: String) {
        #expect(ISODate.format(seconds) == text)
        #expect(ISODate.parse(text) == seconds)
    }

    /// What a Foundation Date made from these seconds holds (it counts from 2001).
    static func dateDouble(_ seconds: Double) -> Double { Date(timeIntervalSince1970: seconds).timeIntervalSince1970 }

    @Test func formatRoundsToTheMicrosecond() {
        #expect(ISODate.format(0.0000004) == "1970-01-01T00:00:00.000000Z")
        #expect(ISODate.format(0.0000006) == "1970-01-01T00:00:00.000001Z")
        #expect(ISODate.format(59.9999996) == "1970-01-01T00:01:00.000000Z")
        #expect(ISODate.format(-0.0000004) == "1970-01-01T00:00:00.000000Z")
        #expect(ISODate.round(1.0000004) == 1.0)
        #expect(ISODate.round(1.0000006) == 1.000001)
        #expect(ISODate.round(-1.0000006) == -1.000001)
    }

    @Test func roundTripAtMicrosecondPrecision() throws {
        var rng = SplitMix64(seed: 1234)
        let low: Int64 = -2_208_988_800_000_000  // 1900
        let high: Int64 = 4_102_444_800_000_000  // 2100
        for _ in 0..<5_000 {
            let micros = low + Int64(rng.next() % UInt64(high - low))
            let seconds = Double(micros) / 1_000_000
            #expect(ISODate.round(seconds) == seconds)
            let text = ISODate.format(seconds)
            #expect(text.count == 27)
            let parsed = try #require(ISODate.parse(text), "\(text)")
            #expect(parsed == seconds, "\(micros) → \(text) → \(parsed)")
            #expect(ISODate.format(parsed) == text)
        }
    }

    @Test func roundTripThroughFoundationDate() {
        let date = Date(timeIntervalSince1970: 1_769_860_800.654321)
        let text = ISODate.format(date.timeIntervalSince1970)
        #expect(text == "2026-01-31T12:00:00.654321Z")
        #expect(ISODate.parse(text) == ISODate.round(date.timeIntervalSince1970))
    }

    @Test(arguments: [
        ("2026-01-31T14:00:00+02:00", 1_769_860_800.0),
        ("2026-01-31T07:30:00-04:30", 1_769_860_800),
        ("2026-01-31T12:00:00+00:00", 1_769_860_800),
        ("2026-01-31T12:00:00-00:00", 1_769_860_800),
        ("2026-02-01T01:00:00+13:00", 1_769_860_800),
        ("2026-01-30T23:00:00-13:00", 1_769_860_800),
        ("2026-01-31t12:00:00z", 1_769_860_800),
        ("2026-01-31 12:00:00Z", 1_769_860_800),
        ("2026-01-31T12:00:00Z", 1_769_860_800),
        ("2026-01-31T12:00:00.5Z", 1_769_860_800.5),
        ("2026-01-31T12:00:00.1234569Z", 1_769_860_800.123457),
        ("1970-01-01T00:00:00.1234567Z", 0.123457),
        ("2026-01-31T12:00:00.000000400Z", 1_769_860_800),
        ("2026-01-31", 1_769_817_600),
        ("1970-01-01T00:30:00+01:00", -1_800),
        ("1969-12-31T23:59:59.999999Z", -0.000001),
        ("1960-06-15T12:00:00.25-06:00", -301_211_999.75),
    ])
    func parsesOffsetsAndVariants(text: String, seconds: Double) {
        #expect(ISODate.parse(text) == seconds)
    }

    @Test(arguments: [
        "", "2026", "2026-01", "26-01-31", "2026-1-31", "2026-01-1",
        "2026-02-30", "2026-02-29", "2100-02-29", "1900-02-29", "2026-04-31", "2026-06-31", "2026-09-31", "2026-11-31",
        "2026-13-01", "2026-00-10", "2026-01-00", "2026-01-32",
        "2026-01-31T", "2026-01-31T12", "2026-01-31T12:00", "2026-01-31T12:00Z", "2026-01-31T12:00:00",
        "2026-01-31T24:00:00Z", "2026-01-31T12:60:00Z", "2026-01-31T12:00:60Z",
        "2026-01-31T12:00:00.Z", "2026-01-31T12:00:00,5Z", "2026-01-31T12:00:00+2:00", "2026-01-31T12:00:00+0200",
        "2026-01-31T12:00:00+24:00", "2026-01-31T12:00:00+01:60", "2026-01-31T12:00:00Zjunk", "2026-01-31T12:00:00Z ",
        " 2026-01-31", "2026-01-31x", "2026/01/31", "２０２６-01-31", "2026-01-31T1２:00:00Z", "-2026-01-31",
    ])
    func rejectsInvalidDates(text: String) {
        #expect(ISODate.parse(text) == nil)
    }

    @Test func leapYears() {
        #expect(ISODate.parse("2000-02-29") != nil)
        #expect(ISODate.parse("2024-02-29") != nil)
        #expect(ISODate.parse("2400-02-29") != nil)
        #expect(ISODate.parse("1600-02-29") != nil)
        #expect(ISODate.parse("1900-02-29") == nil)
        #expect(ISODate.parse("2023-02-29") == nil)
        #expect(ISODate.parse("2024-12-31") == ISODate.parse("2025-01-01").map { $0 - 86_400 })
    }

    @Test func civilConversionsAgree() {
        // days(year:month:day:) and civil(fromDays:) are inverses over a long range, across the epoch.
        var day: Int64 = -800_000
        while day < 800_000 {
            let (y, m, d) = ISODate.civil(fromDays: day)
            #expect(ISODate.days(year: Int(y), month: Int(m), day: Int(d)) == day)
            day += 997
        }
        #expect(ISODate.days(year: 1970, month: 1, day: 1) == 0)
        #expect(ISODate.days(year: 1969, month: 12, day: 31) == -1)
        #expect(ISODate.civil(fromDays: -1) == (1969, 12, 31))
    }

    /// Both ends of the range, leap days and the epoch's neighbours: each text parses to one stored
    /// value that formats back to the very same text (export → import → export is byte-identical).
    /// Far from 1970 only fractions a Double holds there are exact (see `farTextsSettleOnOneText`).
    @Test(arguments: [
        "0001-01-01T00:00:00.000000Z", "0001-01-01T00:00:00.500000Z", "0001-12-31T23:59:59.750000Z",
        "0004-02-29T12:34:56.000000Z", "1600-02-29T00:00:00.000000Z", "1697-08-01T00:00:00.250000Z",
        "1900-02-28T23:59:59.999999Z", "1901-12-13T20:45:52.000001Z", "1969-12-31T23:59:59.999999Z",
        "1970-01-01T00:00:00.000000Z", "1970-01-01T00:00:00.000001Z", "2000-02-29T23:59:59.999999Z",
        "2038-01-19T03:14:08.000001Z", "2242-03-16T12:56:32.125000Z", "2200-06-05T23:47:34.740991Z",
        "2400-02-29T00:00:00.000000Z", "9999-02-28T23:59:59.500000Z", "9999-12-31T00:00:00.000000Z",
        "9999-12-31T23:59:59.000000Z", "9999-12-31T23:59:59.999969Z", "9999-12-31T23:59:59.999999Z",
    ])
    func textsRoundTripExactly(text: String) throws {
        let seconds = try #require(ISODate.parse(text))
        #expect(ISODate.round(seconds) == seconds, "a parsed date is already rounded")
        #expect(ISODate.format(seconds) == text)
        #expect(ISODate.parse(ISODate.format(seconds)) == seconds)
    }

    /// Where one Double holds several microseconds, a text parses to the nearest Double, which formats
    /// as the microsecond nearest to it; that text then round-trips exactly.
    @Test(arguments: [
        "0001-01-01T00:00:00.000001Z", "0001-12-31T23:59:59.999999Z", "0004-02-29T12:34:56.789012Z",
        "1697-08-01T00:00:00.000001Z", "2242-03-16T12:56:32.000001Z", "2255-06-05T23:47:34.740991Z",
        "9999-02-28T23:59:59.999999Z",
    ])
    func farTextsSettleOnOneText(text: String) throws {
        let seconds = try #require(ISODate.parse(text))
        #expect(ISODate.round(seconds) == seconds)
        let settled = ISODate.format(seconds)
        #expect(ISODate.parse(settled) == seconds)
        #expect(ISODate.format(try #require(ISODate.parse(settled))) == settled)
        #expect(abs(seconds - Double(ISODate.split(seconds).whole)) < 1.000001)
    }

    /// The last microsecond of 9999 is, as a Double, the first instant of 10000 (the step there is about
    /// 30 µs): it must still be written in four digits, never as ":000-01-01…", and read back.
    @Test func theLastInstantOfYear9999() throws {
        let last = try #require(ISODate.parse("9999-12-31T23:59:59.999999Z"))
        #expect(ISODate.format(last) == "9999-12-31T23:59:59.999999Z")
        #expect(ISODate.parse("9999-12-31T23:59:59.9999999Z") == nil, "rounds up into year 10000")
        #expect(ISODate.parse("10000-01-01T00:00:00Z") == nil)
        #expect(ISODate.parse("9999-12-31T23:59:59.999999-00:01") == nil)
        #expect(ISODate.format(last + 1) == "\(last + 1)", "beyond four-digit years a date is shown as its number")
        #expect(ISODate.format(ISODate.earliest) == "0001-01-01T00:00:00.000000Z")
        #expect(ISODate.parse("0000-12-31T23:59:59.999999Z") == nil)
        #expect(ISODate.parse("0001-01-01T00:00:00.000000+00:01") == nil)
    }

    /// Rounding is one function: a fixed point on what it returns, the value `parse` gives for the text
    /// `format` writes, and the Double nearest to the microsecond (as `Date(timeIntervalSince1970:)` of
    /// that decimal), over the whole range of four-digit years.
    @Test func roundingIsOneFunctionOverTheWholeRange() throws {
        var rng = SplitMix64(seed: 99)
        for k in 0..<20_000 {
            let span = ISODate.representable.upperBound - ISODate.representable.lowerBound
            var raw = ISODate.representable.lowerBound + span * Double(rng.next() >> 11) / 0x1p53
            if k % 4 == 0 { raw = Double(Int64(rng.next() % 8_000_000_000)) - 4_000_000_000 + Double(rng.next() % 1000) / 997 }
            let stored = ISODate.round(raw)
            guard ISODate.representable.contains(stored) else { continue }
            #expect(ISODate.round(stored) == stored, "\(raw)")
            let text = ISODate.format(stored)
            #expect(text.count == 27, "\(raw) → \(text)")
            #expect(ISODate.parse(text) == stored, "\(raw) → \(text)")
            #expect(abs(stored - raw) <= 0.0000005 + max(raw.ulp, (raw - ISODate.referenceDate).ulp), "\(raw) moved to \(stored)")
            if raw >= 0x1p33 { #expect(stored == raw, "a Double coarser than a microsecond is left as it is") }
            if raw < -0x1p33 { #expect(Self.dateDouble(stored) == stored, "long before 2001, on a Date's own steps") }
        }
        // The Double nearest to the decimal (as Swift reads a literal), or long before 2001 a Date's own.
        #expect(ISODate.round(-0.0000010000000000287557) == -0.000001)
        #expect(ISODate.parse("1969-12-31T23:59:59.999999Z") == -0.000001)
        #expect(ISODate.parse("2255-06-05T23:47:34.740991Z") == 9_007_199_254.740991)
        #expect(ISODate.parse("0001-01-01T00:00:00.000001Z") == Self.dateDouble(-62_135_596_799.999999))
    }

    /// Stored dates order as Foundation's Dates order: near 1697 a Date's step is about 2 µs where a
    /// Double counted from 1970 has 1 µs, and `#Predicate` saw two instants as one Date that SQL kept apart.
    @Test func storedDatesCompareAsFoundationDates() throws {
        let a = try #require(ISODate.parse("1697-10-17T11:03:28.000000Z"))
        let b = try #require(ISODate.parse("1697-10-17T11:03:28.000001Z"))
        #expect((a == b) == (Date(timeIntervalSince1970: a) == Date(timeIntervalSince1970: b)))
        var rng = SplitMix64(seed: 7)
        // Where the rule changes (2^32 s before 2001), a Date's step is about 1 µs: neighbours there too.
        let seam = ISODate.referenceDate - 0x1p32
        for k in 0..<40_000 {
            var base = Double(Int64(rng.next() % 320_000_000_000)) - 63_000_000_000
            if k % 2 == 0 { base = seam + Double(Int64(rng.next() % 20)) - 10 }
            let x = ISODate.round(base + Double(rng.next() % 1_000_000) / 1_000_000)
            let y = ISODate.round(x + Double(rng.next() % 5) / 1_000_000)
            let dx = Date(timeIntervalSince1970: x), dy = Date(timeIntervalSince1970: y)
            #expect((x < y) == (dx < dy) && (x == y) == (dx == dy), "\(x) \(y)")
            if x < seam - 1 { #expect(dx.timeIntervalSince1970 == x, "long before 2001 a stored date is a Date's own value: \(x)") }
        }
        // Every microsecond for 0.2 s across the seam and across 1697 (where a Date's step is 2 µs):
        // consecutive microseconds are distinct Dates in order, or one Date stored as one value.
        for center in [seam, ISODate.referenceDate - 0x1p33, 0] {
            var previous = ISODate.round(center - 0.1)
            var ordered = 0, merged = 0
            for k in 1...200_000 {
                let next = ISODate.round(center - 0.1 + Double(k) / 1_000_000)
                let dp = Date(timeIntervalSince1970: previous), dn = Date(timeIntervalSince1970: next)
                if previous < next && dp < dn { ordered += 1 } else if previous == next && dp == dn { merged += 1 }
                previous = next
            }
            #expect(ordered + merged == 200_000, "around \(center): \(ordered) ordered, \(merged) merged")
        }
    }
}
