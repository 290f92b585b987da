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
}
