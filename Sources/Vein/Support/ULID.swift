import Foundation

/// A Universally Unique Lexicographically Sortable Identifier: 48 bits of milliseconds since 1970 and
/// 80 random bits, written as 26 characters of Crockford base32.
///
/// Every row's id is a ULID, so ids sort in creation order and carry their creation time (docs/store-format.md).
/// Within one process, `ULID.make()` is monotonic: an id made in the same millisecond as the previous one
/// is the previous one plus one, so ids never sort out of creation order even at high insert rates.
package struct ULID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 128 bits, big-endian: `high` holds the timestamp and the first 16 random bits.
    package let high: UInt64
    package let low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    package init(milliseconds: UInt64, random: (UInt16, UInt64)) {
        precondition(milliseconds < 1 << 48, "ULID timestamp out of range")
        self.high = milliseconds << 16 | UInt64(random.0)
        self.low = random.1
    }

    /// Milliseconds since 1970-01-01 UTC.
    package var milliseconds: UInt64 { high >> 16 }
    package var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    package static func < (a: ULID, b: ULID) -> Bool { (a.high, a.low) < (b.high, b.low) }

    // MARK: Generation

    /// The last ULID made, behind a pthread mutex (NSLock). Not Synchronization's Mutex: its futex
    /// is invisible to the thread sanitizer, which then reports every use as a race.
    private final class GeneratorState: @unchecked Sendable {
        let lock = NSLock()
        var last = ULID(high: 0, low: 0)
    }
    private static let state = GeneratorState()

    /// A new ULID, greater than every ULID this process made before.
    package static func make(now: Date = Date()) -> ULID {
        let ms = UInt64(max(0, (now.timeIntervalSince1970 * 1000).rounded(.down)))
        return state.lock.withLock {
            let next: ULID
            if ms > state.last.milliseconds {
                var bytes = (UInt64(0), UInt64(0))
                withUnsafeMutableBytes(of: &bytes) { SecureRandom.fill($0) }
                next = ULID(milliseconds: ms, random: (UInt16(truncatingIfNeeded: bytes.0), bytes.1))
            } else {
                // Same (or an earlier, if the clock stepped back) millisecond: increment the 80 random bits.
                // An overflow carries into the timestamp, which keeps the order.
                let (low, carry) = state.last.low.addingReportingOverflow(1)
                next = ULID(high: state.last.high &+ (carry ? 1 : 0), low: low)
            }
            state.last = next
            return next
        }
    }

    // MARK: Text

    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private static let decoding: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (i, c) in alphabet.enumerated() {
            table[Int(c)] = UInt8(i)
            table[Int(Character(Unicode.Scalar(c)).lowercased().utf8.first!)] = UInt8(i)
        }
        return table
    }()

    /// The 26-character canonical (uppercase) form.
    package var description: String {
        String(unsafeUninitializedCapacity: 26) { out in
            writeCanonical(into: out)
            return 26
        }
    }

    /// The canonical form's 26 bytes, lent to `body` without making a string (a save binds every new
    /// row's id this way).
    package func withCanonicalUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 26) { out in
            writeCanonical(into: out)
            return try body(UnsafeBufferPointer(out))
        }
    }

    private func writeCanonical(into out: UnsafeMutableBufferPointer<UInt8>) {
        ULID.alphabet.withUnsafeBufferPointer { alphabet in
            // 130 bits of text for 128 bits of value: the first character carries only the top 3 bits.
            var hi = high, lo = low
            for i in stride(from: 25, through: 0, by: -1) {
                out[i] = alphabet[Int(lo & 31)]
                lo = (lo >> 5) | (hi << 59)
                hi >>= 5
            }
        }
    }

    /// Parses the 26-character form, in either case. Returns nil for anything else, including a first
    /// character above 7 (which would overflow 128 bits).
    package init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 26 else { return nil }
        var hi: UInt64 = 0, lo: UInt64 = 0
        for (i, c) in utf8.enumerated() {
            let v = ULID.decoding[Int(c)]
            guard v != 0xff else { return nil }
            if i == 0 && v > 7 { return nil }
            hi = (hi << 5) | (lo >> 59)
            lo = (lo << 5) | UInt64(v)
        }
        self.init(high: hi, low: lo)
    }

    /// Parses only the canonical form (26 uppercase characters, as `description` writes them), from
    /// bytes: the identity map's fast path, where "01ab…" and "01AB…" are different ids and must not
    /// meet in one key.
    init?(canonicalUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 26 else { return nil }
        var hi: UInt64 = 0, lo: UInt64 = 0
        for (i, c) in bytes.enumerated() {
            guard let v = ULID.canonicalDigit(c) else { return nil }
            if i == 0 && v > 7 { return nil }
            hi = (hi << 5) | (lo >> 59)
            lo = (lo << 5) | UInt64(v)
        }
        self.init(high: hi, low: lo)
    }

    /// The value of one character of the canonical alphabet (uppercase; no I, L, O, U), by ranges rather
    /// than through `decoding`: a fetch parses every row's id, and each read of a static table goes
    /// through its lazy initialization check.
    @inline(__always)
    private static func canonicalDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "H"): return c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "J")...UInt8(ascii: "K"): return c - UInt8(ascii: "J") + 18
        case UInt8(ascii: "M")...UInt8(ascii: "N"): return c - UInt8(ascii: "M") + 20
        case UInt8(ascii: "P")...UInt8(ascii: "T"): return c - UInt8(ascii: "P") + 22
        case UInt8(ascii: "V")...UInt8(ascii: "Z"): return c - UInt8(ascii: "V") + 27
        default: return nil
        }
    }
}
