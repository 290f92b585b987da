import Foundation
import Testing
@testable import Vein

/// Row ids: 48-bit milliseconds + 80 random bits, 26 characters of Crockford base32, monotonic.
@Suite struct ULIDTests {
    static let crockford = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    @Test func madeIDsAre26CrockfordCharacters() {
        for _ in 0..<100 {
            let text = ULID.make().description
            #expect(text.count == 26)
            #expect(text.utf8.count == 26)
            #expect(text.allSatisfy(Self.crockford.contains))
            #expect(text.first! <= "7")
        }
    }

    @Test func formatParseRoundTrip() throws {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<1_000 {
            let ulid = ULID(high: rng.next(), low: rng.next())
            let text = ulid.description
            let parsed = try #require(ULID(text))
            #expect(parsed == ulid)
            #expect(parsed.description == text)
            #expect(ULID(text.lowercased()) == ulid)
        }
        for _ in 0..<100 {
            let made = ULID.make()
            #expect(ULID(made.description) == made)
        }
    }

    @Test func knownVectorFromTheULIDSpecification() throws {
        // ulid(1469918176385) → 01ARYZ6S41…, from the reference implementation's README.
        let ulid = try #require(ULID("01ARYZ6S41TSV4RRFFQ69G5FAV"))
        #expect(ulid.milliseconds == 1_469_918_176_385)
        #expect(ULID(milliseconds: 1_469_918_176_385, random: (0, 0)).description.prefix(10) == "01ARYZ6S41")
    }

    @Test func extremesAndTheirDescriptions() throws {
        let zero = ULID(high: 0, low: 0)
        let one = ULID(high: 0, low: 1)
        let max = ULID(high: .max, low: .max)
        #expect(zero.description == "00000000000000000000000000")
        #expect(one.description == "00000000000000000000000001")
        #expect(max.description == "7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
        #expect(ULID("7ZZZZZZZZZZZZZZZZZZZZZZZZZ") == max)
        #expect(ULID("7zzzzzzzzzzzzzzzzzzzzzzzzz") == max)
        #expect(ULID("00000000000000000000000000") == zero)
        #expect(ULID(high: 0, low: 31).description == "0000000000000000000000000Z")
        #expect(ULID(high: 0, low: 32).description == "00000000000000000000000010")
        // The boundary between low and high words.
        #expect(ULID(high: 1, low: 0).description == "0000000000000G000000000000")
        #expect(ULID("0000000000000G000000000000") == ULID(high: 1, low: 0))
        #expect(max.milliseconds == (1 << 48) - 1)
    }

    @Test func orderingFollowsTheBitsAndTheText() {
        let a = ULID(high: 5, low: .max)
        let b = ULID(high: 6, low: 0)  // what an overflow of the random part carries into
        #expect(a < b)
        #expect(a.description < b.description)
        #expect(ULID(high: 1, low: 2) < ULID(high: 1, low: 3))
        #expect(!(ULID(high: 1, low: 3) < ULID(high: 1, low: 3)))
        var rng = SplitMix64(seed: 9)
        let ids = (0..<500).map { _ in ULID(high: rng.next() >> UInt64(rng.next() % 64), low: rng.next()) }
        // Text order is value order: sorting either way gives the same sequence.
        #expect(ids.sorted().map(\.description) == ids.map(\.description).sorted())
    }

    @Test func lowercaseParses() {
        let upper = "01HZX3K9QW8F2V7M4N6P5R0T1S"
        #expect(ULID(upper.lowercased()) == ULID(upper))
        #expect(ULID("01hzX3k9QW8f2V7m4N6p5R0t1s") == ULID(upper))
    }

    @Test(arguments: [
        "",                                // empty
        "0123456789ABCDEFGHJKMNPQR",       // 25
        "0123456789ABCDEFGHJKMNPQRST",     // 27
        "01ARZ3NDEKTSV4RRFFQ69G5FAI",      // I is not Crockford
        "01ARZ3NDEKTSV4RRFFQ69G5FAL",      // L
        "01ARZ3NDEKTSV4RRFFQ69G5FAO",      // O
        "01ARZ3NDEKTSV4RRFFQ69G5FAU",      // U
        "01ARZ3NDEKTSV4RRFFQ69G5FA-",      // punctuation
        "01ARZ3NDEKTSV4RRFFQ69G5FA ",      // space
        " 01ARZ3NDEKTSV4RRFFQ69G5FA",
        "01ARZ3NDEKTSV4RRFFQ69G5FÄ",       // 26 bytes but a non-ASCII character
        "01ARZ3NDEKTSV4RRFFQ69G5F\u{0}V",
        "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",      // first character above 7: more than 128 bits
        "9000000000000000000000000Z",
        "Z0000000000000000000000000",
        "z0000000000000000000000000",
    ])
    func rejectsMalformedText(text: String) {
        #expect(ULID(text) == nil)
    }

    @Test func firstCharacterUpTo7IsAccepted() {
        for c in "01234567" {
            #expect(ULID(String(c) + String(repeating: "Z", count: 25)) != nil)
        }
    }

    @Test func monotonicWithinTheSameMillisecond() {
        // A fixed instant in the past: every id after the first comes from the "same (or earlier)
        // millisecond" path, which increments; ids made concurrently by other tests only push it further.
        let now = Date(timeIntervalSince1970: 1_600_000_000.5)
        let first = ULID.make(now: now)
        var previous = first
        var ids = [first]
        for _ in 1..<10_000 {
            let next = ULID.make(now: now)
            #expect(next > previous)
            #expect(next.milliseconds >= previous.milliseconds)
            previous = next
            ids.append(next)
        }
        #expect(Set(ids).count == 10_000)
        let texts = ids.map(\.description)
        #expect(texts == texts.sorted())
        #expect(Set(texts).count == 10_000)
    }

    @Test func clockSteppingBackStillIncreases() {
        let current = ULID.make(now: Date())
        let earlier = ULID.make(now: Date(timeIntervalSince1970: 0))
        #expect(earlier > current)
        #expect(earlier.milliseconds >= current.milliseconds)
        let beforeEpoch = ULID.make(now: Date(timeIntervalSince1970: -1_000))
        #expect(beforeEpoch > earlier)
    }

    @Test func idsMadeConcurrentlyAreUnique() async {
        let ids = await withTaskGroup(of: [ULID].self) { group in
            for _ in 0..<8 { group.addTask { (0..<1_000).map { _ in ULID.make() } } }
            var all: [ULID] = []
            for await batch in group {
                // Each task sees its own ids in increasing order.
                #expect(batch == batch.sorted())
                all += batch
            }
            return all
        }
        #expect(Set(ids).count == 8_000)
    }

    @Test func timestampExtraction() throws {
        let ms: UInt64 = 1_769_860_800_123  // 2026-01-31T12:00:00.123Z
        let ulid = ULID(milliseconds: ms, random: (0xBEEF, 0x0123_4567_89AB_CDEF))
        #expect(ulid.milliseconds == ms)
        #expect(ulid.date == Date(timeIntervalSince1970: 1_769_860_800.123))
        #expect(ulid.high == ms << 16 | 0xBEEF)
        #expect(ulid.low == 0x0123_4567_89AB_CDEF)
        #expect(ISODate.format(ulid.date.timeIntervalSince1970) == "2026-01-31T12:00:00.123000Z")
        // Parsing keeps the timestamp.
        #expect(try #require(ULID(ulid.description)).milliseconds == ms)
        // Zero and the largest timestamp.
        #expect(ULID(milliseconds: 0, random: (0, 0)).date == Date(timeIntervalSince1970: 0))
        #expect(ULID(milliseconds: (1 << 48) - 1, random: (.max, .max)) == ULID(high: .max, low: .max))
    }

    @Test func madeIDIsNeverOlderThanTheMakingTime() {
        // Not asserting more: other tests in this process share the generator.
        let now = Date()
        let ulid = ULID.make(now: now)
        #expect(ulid.milliseconds >= UInt64((now.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
