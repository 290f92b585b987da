/// Counted words as messages write them: every message that puts a number before a noun says it through
/// here, so a count of one is "1 row is", never "1 rows" or "1 row are".
package enum Phrase {
    /// "1 row", "2 rows", "0 rows": the noun is singular only for exactly one; `plural` for a noun that does
    /// not take an -s.
    package static func count(_ n: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
        "\(n) " + (n == 1 ? noun : plural ?? noun + "s")
    }

    /// "1 row is", "3 rows are", "1 row points to": the count, its noun and a verb that agrees with it,
    /// the verb given as it goes with a plural ("are", "hold", "point to", "would hold").
    package static func count(_ n: some BinaryInteger, _ noun: String, plural: String? = nil, _ verb: String) -> String {
        count(n, noun, plural: plural) + " " + agreeing(verb, with: n)
    }

    /// A second noun that agrees with a count: `noun(n, "a ULID", plural: "ULIDs")` in "1 id is not a ULID",
    /// "3 ids are not ULIDs".
    package static func noun(_ n: some BinaryInteger, _ singular: String, plural: String) -> String {
        n == 1 ? singular : plural
    }

    /// "1 row", "2 rows".
    package static func rows(_ n: some BinaryInteger) -> String { count(n, "row") }

    /// "1 row is", "2 rows are".
    package static func rows(_ n: some BinaryInteger, _ verb: String) -> String { count(n, "row", verb) }

    /// A verb given in its plural form, made to agree with a count: "are" → "is", "hold a" → "holds a";
    /// modals ("would hold") stay as they are.
    package static func agreeing(_ verb: String, with n: some BinaryInteger) -> String {
        guard n == 1 else { return verb }
        let first = verb.prefix { $0 != " " }, rest = verb.dropFirst(first.count)
        let singular: String
        if let irregular = irregular[String(first)] {
            singular = irregular
        } else if modals.contains(String(first)) {
            singular = String(first)
        } else if ["s", "x", "z", "o"].contains(where: first.hasSuffix) || first.hasSuffix("sh") || first.hasSuffix("ch") {
            singular = first + "es"
        } else {
            singular = first + "s"
        }
        return singular + rest
    }

    private static let irregular = ["are": "is", "were": "was", "have": "has"]
    private static let modals: Set<String> = ["can", "cannot", "could", "may", "might", "must", "shall", "should", "will", "would"]
}
