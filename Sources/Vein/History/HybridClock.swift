import Foundation

/// A hybrid logical clock time (docs/history.md#tokens-and-times): milliseconds since 1970 in the high bits,
/// a counter in the low 16, so times order commits even when the wall clock stalls or steps back, and
/// stay close to the wall clock for people reading them.
package struct HybridClock {
    static let counterBits: UInt64 = 16

    /// The time for a commit after one at `last` (nil for the first), at wall-clock time `now`.
    static func next(after last: Int64?, now: Date = Date()) -> Int64 {
        let physical = Int64(max(0, now.timeIntervalSince1970 * 1000).rounded(.down)) << Int64(counterBits)
        guard let last else { return physical }
        return max(physical, last + 1)
    }

    /// The wall-clock part of a clock time.
    package static func date(of clock: Int64) -> Date {
        Date(timeIntervalSince1970: Double(clock >> Int64(counterBits)) / 1000)
    }

    /// The first clock time at or after `date`: a `--since TIME` bound.
    package static func lowerBound(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.up)) << Int64(counterBits)
    }

    /// The last clock time whose wall-clock part is at or before `date`: an `--at TIME` bound.
    package static func upperBound(of date: Date) -> Int64 {
        ((Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) + 1) << Int64(counterBits)) - 1
    }
}
