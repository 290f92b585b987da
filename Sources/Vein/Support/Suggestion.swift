/// "Did you mean …?" for misspelt names: the closest candidate within a small edit distance.
package enum Suggestion {
    package static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = max(1, word.count / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(word.lowercased(), candidate.lowercased())
            if d <= limit, best == nil || d < best!.1 { best = (candidate, d) }
        }
        return best?.0
    }

    /// " (did you mean \"x\"?)" or "". Manifest messages quote with `"` (JSON), expression messages
    /// with `'` (Swift source shows strings in double quotes).
    package static func hint(for word: String, in candidates: [String], quote: Character = "\"") -> String {
        closest(to: word, in: candidates).map { " (did you mean \(quote)\($0)\(quote)?)" } ?? ""
    }

    /// Edit distance counting a swap of two neighbouring letters as one edit ("titel" → "title"),
    /// the optimal-string-alignment form of Damerau–Levenshtein.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
