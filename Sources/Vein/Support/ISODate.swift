import Foundation

/// Dates as Vein stores and exchanges them: seconds since 1970 UTC rounded to microseconds, written as
/// ISO 8601 UTC with exactly six fractional digits (`2026-01-31T12:00:00.000000Z`).
///
/// Hand-written rather than ISO8601DateFormatter, which keeps only milliseconds: a round trip through
/// JSON must give back the same microsecond.
package enum ISODate {
    /// Rounds to the microsecond, the precision of the store, and to the Double a Foundation Date holds
    /// for it (see `instant`): the one rounding every date goes through (context, import, `#date`,
    /// export), so a value once stored is a fixed point (`round(round(x)) == round(x)`),
    /// `parse(format(x)) == x` for every stored `x`, and stored dates order as Foundation's Dates do.
    ///
    /// Whole seconds and the fraction are split first: `seconds * 1e6` is not exact past 2^53 µs (the
    /// year 2255), so rounding the product misplaced far dates by several microseconds.
    public static func round(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return seconds }
        let (whole, micros) = split(seconds)
        return instant(whole: whole, micros: micros)
    }

    /// The Double stored for whole seconds plus microseconds, made the same way wherever a date is made
    /// (so parsing and rounding agree): the Double nearest to the instant, except long before 2001.
    ///
    /// A Foundation Date counts from 2001, and `#Predicate` compares those Doubles. More than 2^32 s
    /// before 2001 (before 1865) a Date's step is 1 µs or coarser (2 µs around 1697), so two microseconds
    /// that Doubles counted from 1970 keep apart can be one Date, and SQL would answer where Swift does
    /// not. There the stored value is the Date nearest to the instant, counted from 2001 and moved back by
    /// the reference date (exactly: the step there divides the reference date). Later, distinct
    /// microseconds stay distinct Dates in the same order, and the nearest Double from 1970 is kept.
    static func instant(whole: Double, micros: Double) -> Double {
        guard whole - referenceDate < -0x1p32 else { return nearest(whole: whole, micros: micros) }
        return nearest(whole: whole - referenceDate, micros: micros) + referenceDate
    }

    /// Foundation's reference date, 2001-01-01T00:00:00Z, in seconds since 1970.
    static let referenceDate = 978_307_200.0

    /// The Double nearest to whole seconds plus microseconds. Below 2^53 µs the total is an exact integer
    /// and one division rounds it; above, the step between Doubles (2 µs or more) is coarser than any
    /// error of the sum, and neighbouring microseconds share one Double.
    private static func nearest(whole: Double, micros: Double) -> Double {
        let total = whole * 1_000_000 + micros
        if total.magnitude < 0x1p53 { return total / 1_000_000 }
        return whole + micros / 1_000_000
    }

    /// `seconds` as whole seconds (floor) and the microseconds after them, 0...999_999 (a fraction that
    /// rounds up to a full second carries into the seconds).
    static func split(_ seconds: Double) -> (whole: Double, micros: Double) {
        let whole = seconds.rounded(.down)
        let micros = ((seconds - whole) * 1_000_000).rounded()  // seconds - whole is exact
        return micros >= 1_000_000 ? (whole + 1, 0) : (whole, micros)
    }

    /// The whole seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    static let earliestWhole: Int64 = -62_135_596_800, latestWhole: Int64 = 253_402_300_799
    /// 0001-01-01T00:00:00Z, the first instant four-digit years can write.
    static let earliest = Double(earliestWhole)
    /// 9999-12-31T23:59:59.999999Z as stored. A Double's step there is about 30 µs, so this is the very
    /// Double of 10000-01-01T00:00:00Z: it is written as the last microsecond of 9999, the text it came from.
    static let latest = instant(whole: Double(latestWhole), micros: 999_999)
    static let representable = earliest...latest

    public static func format(_ seconds: Double) -> String {
        var bytes: [UInt8] = []
        write(seconds, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `format`'s text appended as bytes (export writes one per date field per row).
    static func write(_ seconds: Double, into out: inout [UInt8]) {
        // Outside four-digit years (or not finite) there is no ISO 8601 text; such a value can only come
        // from raw SQL, and is shown as its number rather than trapping on overflow.
        guard representable.contains(seconds) else { out += Array("\(seconds)".utf8); return }
        var (whole, micros) = split(seconds)
        if seconds == latest { (whole, micros) = (Double(latestWhole), 999_999) }
        let wholeSeconds = Int64(whole)
        var days = wholeSeconds / 86_400
        var secOfDay = wholeSeconds % 86_400
        if secOfDay < 0 { secOfDay += 86_400; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        let frac = Int64(micros)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var v = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(v / divisor))
                v %= divisor
                divisor /= 10
            }
        }
        digits(Int64(y), 4); out.append(UInt8(ascii: "-")); digits(Int64(m), 2); out.append(UInt8(ascii: "-")); digits(Int64(d), 2)
        out.append(UInt8(ascii: "T")); digits(secOfDay / 3600, 2); out.append(UInt8(ascii: ":")); digits(secOfDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":")); digits(secOfDay % 60, 2); out.append(UInt8(ascii: ".")); digits(frac, 6); out.append(UInt8(ascii: "Z"))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; a date alone (`YYYY-MM-DD`) is midnight UTC.
    /// Returns seconds since 1970 rounded to microseconds, or nil when the text is not such a date.
    public static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8(parse(utf8:))
    }

    private static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        func number(_ width: Int) -> Int? {
            guard i + width <= b.count else { return nil }
            var v = 0
            for k in i..<i + width {
                guard b[k] >= 48 && b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            i += width
            return v
        }
        func expect(_ c: Unicode.Scalar) -> Bool {
            guard i < b.count, b[i] == UInt8(ascii: c) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        // Counted in whole seconds and whole microseconds, made a Double once by `instant` (as `round`
        // does): adding a fraction to a large Double and rounding after would misround digits beyond
        // the sixth ("…00.0000004Z" came out as 1 µs).
        var whole = days(year: year, month: month, day: day) * 86_400
        var micros: Int64 = 0
        if i == b.count { return instant(whole: Double(whole), micros: 0) }
        guard expect("T") || expect("t") || expect(" "), let hour = number(2), expect(":"), let minute = number(2),
              expect(":"), let second = number(2), hour < 24, minute < 60, second < 60
        else { return nil }
        whole += Int64(hour * 3600 + minute * 60 + second)
        if expect(".") {
            var fraction: Int64 = 0, digits = 0, roundUp = false
            while i < b.count, b[i] >= 48 && b[i] <= 57 {
                if digits < 6 { fraction = fraction * 10 + Int64(b[i] - 48) } else if digits == 6 { roundUp = b[i] >= 53 }
                i += 1
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { fraction *= 10 }
            micros = fraction + (roundUp ? 1 : 0)
            if micros == 1_000_000 { whole += 1; micros = 0 }
        }
        if expect("Z") || expect("z") {
            // UTC
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign: Int64 = b[i] == UInt8(ascii: "+") ? 1 : -1
            i += 1
            guard let oh = number(2), expect(":"), let om = number(2), oh < 24, om < 60 else { return nil }
            whole -= sign * Int64(oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        // An offset can push 9999-12-31 past the last year ISO 8601 text can write back (or 0001-01-01
        // before the first); checked on the exact count, since far from 1970 one Double holds several
        // microseconds and year 10000 would pass for the last microsecond of 9999.
        guard (earliestWhole...latestWhole).contains(whole) else { return nil }
        return instant(whole: Double(whole), micros: Double(micros))
    }

    private static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }
    private static func daysIn(month: Int, year: Int) -> Int {
        [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    // Howard Hinnant's days-from-civil and civil-from-days algorithms (proleptic Gregorian calendar).
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
