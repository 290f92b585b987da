/// Counted words as messages write them.
enum Phrase {
    /// "1 row", "2 rows".
    static func rows(_ n: Int) -> String { n == 1 ? "1 row" : "\(n) rows" }
}
