/// Which Characters of a source are white space, by Character offset (a token's column): what the parser
/// asks around `!` and `?` (Swift's rules for them). A bit a Character, mapped in one pass the first time
/// it is asked (most statements have no `!` or `?`): the Characters themselves, 16 bytes each, made a
/// statement of 64 MiB take a gigabyte to parse. A class: the parser holds one reference, and its frames,
/// on the path every level of nesting takes, do not grow (the 512-level limit must fit an 8 MiB stack in
/// a debug build).
package final class WhitespaceColumns {
    private let source: String
    private lazy var map: (bits: [UInt64], count: Int) = Self.map(source)

    package init(_ source: String) {
        self.source = source
    }

    /// How many Characters the source has.
    package var count: Int { map.count }

    /// Whether the Character at `column` is white space (`column` < `count`).
    package subscript(column: Int) -> Bool {
        map.bits[column / 64] & (1 << UInt64(column % 64)) != 0
    }

    private static func map(_ source: String) -> (bits: [UInt64], count: Int) {
        var bits: [UInt64] = []
        var count = 0
        func note(_ isWhitespace: Bool) {
            if count % 64 == 0 { bits.append(0) }
            if isWhitespace { bits[count / 64] |= 1 << UInt64(count % 64) }
            count += 1
        }
        if source.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII: a Character a byte, but for "\r\n" (one Character, white space).
            var previous: UInt8 = 0
            for byte in source.utf8 {
                if !(byte == 0x0A && previous == 0x0D) { note(byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)) }
                previous = byte
            }
        } else {
            for character in source { note(character.isWhitespace) }
        }
        return (bits, count)
    }
}
