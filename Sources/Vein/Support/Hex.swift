import Foundation

/// Lowercase hexadecimal encoding of bytes.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Written straight into the string's storage: a blob of a hundred megabytes is shown as fast as it
    /// can be (raw SQL in the REPL shows one whole when its output is not a terminal).
    package static func encode(_ data: Data) -> String {
        String(unsafeUninitializedCapacity: data.count * 2) { out in
            data.withUnsafeBytes { bytes in encode(bytes, into: UnsafeMutableRawBufferPointer(out)) }
            return data.count * 2
        }
    }

    /// Writes the lowercase hex of `bytes` into `out` (twice as long), with no String in between.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= 2 * bytes.count)
        digits.withUnsafeBufferPointer { digits in
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                out[2 * i] = digits[Int(byte >> 4)]
                out[2 * i + 1] = digits[Int(byte & 0x0f)]
                i += 1
            }
        }
    }

    /// Decodes an even-length string of hex digits (either case); nil for anything else.
    static func decode(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = Data(capacity: utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
