import Foundation

/// The one form a stored value takes among those Swift's `==` holds equal, so equal values are equal in
/// SQL, in an index and in an export. Every writer (context, import, statements, migrations) and every
/// literal a condition compares with goes through it.
enum NormalForm {
    /// Text in Unicode NFC (Swift compares strings by canonical equivalence; SQLite compares bytes).
    static func text(_ s: String) -> String {
        let ascii = s.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? s.utf8.allSatisfy { $0 < 0x80 }
        return ascii ? s : s.precomposedStringWithCanonicalMapping
    }

    /// A double as a REAL column holds it: SQLite (3.15 as today's) writes an integral REAL as an integer,
    /// and the integer 0 has no sign, so -0.0 comes back as 0.0. Stored that way from the start, pending
    /// and saved objects answer alike (`1 / d`), and an import gives what an export of it gives. Like
    /// NFC for text, it picks one of values Swift's `==` already holds equal.
    static func double(_ d: Double) -> Double { d == 0 ? 0 : d }
}
