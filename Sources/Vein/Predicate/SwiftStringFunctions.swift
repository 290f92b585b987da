import CSQLCipher
import Foundation

/// Swift's String semantics as SQL functions, so that a condition reading them runs inside the scan and
/// no object is made for a row it rejects (the compiler emits them; `SQLFunctions` registers them).
///
/// Each answers what `Evaluator.stringMethod` answers, which it calls for any text but the plainest.
/// Nil in Swift is NULL here: a NULL base gives NULL, as an optional chain meeting nil gives nil, and a
/// NULL argument counts as "", as the evaluator reads it. Text they return is in NFC, the form Vein
/// stores, so SQLite's byte comparison of it stays Swift's canonical equivalence. None can fail and each
/// depends on its arguments only, so they are registered as deterministic.
///
/// The fast path. Their arguments are NFC (stored text, literals, these functions' own results), and in
/// NFC Characters found imply their bytes found: a byte search that finds nothing is Swift's false. Text
/// that is all ASCII without a carriage return (`"\r\n"` is one Character) has one Character a byte, so
/// there the bytes give Swift's answer; other text is made a String and asked.
enum SwiftStringFunctions {
    /// The SQL function for each String method that has one (all but `isEmpty`, which `= ''` answers).
    static let methodNames = ["contains": "vein_contains", "hasPrefix": "vein_has_prefix", "hasSuffix": "vein_has_suffix",
                              "localizedStandardContains": "vein_localized_contains", "lowercased": "vein_lowercased",
                              "uppercased": "vein_uppercased", "count": "vein_count"]
    /// `a + b` on Strings: NFC of the concatenation (two NFC strings can compose where they meet).
    static let concatenateName = "vein_concat"

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    static func register(on handle: OpaquePointer) throws(DatabaseError) {
        let functions: [(String, Int32, SQLFunctions.Function)] = [
            ("vein_contains", 2, { c, _, v in SwiftStringFunctions.test("contains", c, v) }),
            ("vein_has_prefix", 2, { c, _, v in SwiftStringFunctions.test("hasPrefix", c, v) }),
            ("vein_has_suffix", 2, { c, _, v in SwiftStringFunctions.test("hasSuffix", c, v) }),
            ("vein_localized_contains", 2, { c, _, v in SwiftStringFunctions.test("localizedStandardContains", c, v) }),
            ("vein_lowercased", 1, { c, _, v in SwiftStringFunctions.caseMapped("lowercased", c, v) }),
            ("vein_uppercased", 1, { c, _, v in SwiftStringFunctions.caseMapped("uppercased", c, v) }),
            ("vein_count", 1, { c, _, v in SwiftStringFunctions.count(c, v) }),
            ("vein_concat", 2, { c, _, v in SwiftStringFunctions.concatenate(c, v) }),
        ]
        try SQLFunctions.create(functions, flags: SQLITE_UTF8 | SQLITE_DETERMINISTIC, on: handle)
    }

    /// `contains`, `hasPrefix`, `hasSuffix`, `localizedStandardContains`: 1 or 0, NULL on a NULL base.
    private static func test(_ name: String, _ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let base = values[0], let argument = values[1], sqlite3_value_type(base) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        let text = bytes(base), needle = sqlite3_value_type(argument) == SQLITE_NULL ? Bytes(start: nil, count: 0) : bytes(argument)
        let answer = byteAnswer(name, text, needle)
            ?? (Evaluator.stringMethod(name, string(text), string(needle)) == .bool(true))
        sqlite3_result_int64(context, answer ? 1 : 0)
    }

    /// Swift's answer from the bytes alone (see the fast path above), or nil when the Characters decide.
    private static func byteAnswer(_ name: String, _ text: Bytes, _ needle: Bytes) -> Bool? {
        let found: Bool
        switch name {
        case "contains": found = occurs(needle, in: text)
        case "hasPrefix": found = needle.count <= text.count && needle.elementsEqual(text.prefix(needle.count))
        case "hasSuffix": found = needle.count <= text.count && needle.elementsEqual(text.suffix(needle.count))
        default: return nil
        }
        guard found else { return false }
        return isPlain(text) && isPlain(needle) ? true : nil
    }

    /// Whether `needle`'s bytes occur in `text` (an empty needle everywhere).
    private static func occurs(_ needle: Bytes, in text: Bytes) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= text.count, let start = text.baseAddress, let wanted = needle.baseAddress else { return false }
        let last = start + (text.count - needle.count)
        var at = start
        while at <= last, let hit = memchr(at, Int32(first), last - at + 1) {
            let candidate = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(candidate, wanted, needle.count) == 0 { return true }
            at = candidate + 1
        }
        return false
    }

    /// `lowercased()`, `uppercased()`: ASCII maps byte for byte; other text by Swift's Unicode case mapping.
    private static func caseMapped(_ name: String, _ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let base = values[0], sqlite3_value_type(base) != SQLITE_NULL else { return sqlite3_result_null(context) }
        let text = bytes(base)
        guard text.allSatisfy({ $0 < 0x80 }) else {
            guard case .string(let mapped) = Evaluator.stringMethod(name, string(text), "") else { return sqlite3_result_null(context) }
            return result(context, NormalForm.text(mapped))
        }
        let (from, to): (ClosedRange<UInt8>, Int) = name == "lowercased" ? (0x41...0x5A, 0x20) : (0x61...0x7A, -0x20)
        guard text.contains(where: from.contains) else { return sqlite3_result_value(context, base) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: text.count) { mapped in
            for (i, byte) in text.enumerated() { mapped[i] = from.contains(byte) ? UInt8(Int(byte) + to) : byte }
            sqlite3_result_text(context, UnsafeRawPointer(mapped.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(text.count), vein_sqlite_transient())
        }
    }

    /// `count`: Characters, one a byte in plain text.
    private static func count(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let base = values[0], sqlite3_value_type(base) != SQLITE_NULL else { return sqlite3_result_null(context) }
        let text = bytes(base)
        guard !isPlain(text), case .int(let count) = Evaluator.stringMethod("count", string(text), "") else {
            return sqlite3_result_int64(context, Int64(text.count))
        }
        sqlite3_result_int64(context, count)
    }

    /// `a + b`, NULL when either is (the evaluator's answer for a nil operand).
    private static func concatenate(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let a = values[0], let b = values[1], sqlite3_value_type(a) != SQLITE_NULL, sqlite3_value_type(b) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        let left = string(bytes(a))
        result(context, NormalForm.text(left + string(bytes(b))))
    }

    /// A value's text by its length (text may hold a NUL); valid until the value is read as another type.
    private static func bytes(_ value: OpaquePointer) -> Bytes {
        let start = sqlite3_value_text(value)
        return Bytes(start: start, count: start == nil ? 0 : Int(sqlite3_value_bytes(value)))
    }

    /// The String the evaluator would read from the same cell (`Statement.string`).
    private static func string(_ bytes: Bytes) -> String { String(decoding: bytes, as: UTF8.self) }

    /// All ASCII and no carriage return: one Character a byte.
    private static func isPlain(_ bytes: Bytes) -> Bool { bytes.allSatisfy { $0 < 0x80 && $0 != 0x0D } }

    private static func result(_ context: OpaquePointer?, _ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            // Never a nil pointer, which SQLite takes for NULL: "" stays text.
            guard let start = utf8.baseAddress, !utf8.isEmpty else { return sqlite3_result_text(context, "", 0, vein_sqlite_transient()) }
            sqlite3_result_text(context, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), Int32(utf8.count), vein_sqlite_transient())
        }
    }
}
