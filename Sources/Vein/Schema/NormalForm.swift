import Foundation

/// The one stored form among values Swift's `==` holds equal, for the types that have several. Kept in
/// that form from the moment a value is set, pending and saved objects answer alike, equal values are
/// equal cells (so SQL's `=` agrees with Swift's), and export → import → export gives the same bytes
/// (ARCHITECTURE.md I16).
public enum NormalForm {
    /// Text in NFC: `"é"` composed, however it was typed. Swift compares strings by canonical
    /// equivalence, SQLite by bytes; one form for both makes them agree.
    public static func text(_ s: String) -> String {
        let ascii = s.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? s.utf8.allSatisfy { $0 < 0x80 }
        return ascii ? s : s.precomposedStringWithCanonicalMapping
    }

    /// A double as a REAL column holds it: SQLite (3.15 as today's) writes an integral REAL as an integer,
    /// and the integer 0 has no sign, so -0.0 comes back as 0.0.
    public static func double(_ d: Double) -> Double { d == 0 ? 0 : d }

    /// A date rounded to whole microseconds (docs/store-format.md), as the JSON form writes it.
    public static func date(_ seconds: Double) -> Double { ISODate.round(seconds) }

    /// A UUID in Foundation's uppercase form; nil when the text is no UUID.
    public static func uuid(_ text: String) -> String? { UUID(uuidString: text)?.uuidString }

    /// JSON text with every object's keys sorted; nil when the text is not JSON.
    public static func json(_ text: String) -> String? {
        (try? JSONParser.parse(text)).map { JSONWriter.string($0.canonicalized()) }
    }
}
