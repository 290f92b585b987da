/// Rules for the names of models, fields and relationships.
///
/// Names become SQLite identifiers and expression-language identifiers, so they must be plain ASCII
/// identifiers. SQLite compares identifiers case-insensitively: two names that differ only in case collide.
enum Identifier {
    /// Words the expression language reserves. The row key (`_id`) and Vein's own tables start with
    /// `_`, so a model may have a field or relationship named `id`.
    static let reservedWords: Set<String> = ["true", "false", "nil", "self"]

    /// Nil when `name` is acceptable, otherwise what is wrong with it.
    static func problem(with name: String, kind: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "\(kind) name is empty" }
        if first == "_" { return "\(kind) name \"\(name)\" is reserved: names starting with '_' belong to Vein" }
        let isASCIIIdentifier = (first.properties.isAlphabetic && first.isASCII)
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        guard isASCIIIdentifier else {
            return "\(kind) name \"\(name)\" is not an identifier (letters, digits and '_', starting with a letter)"
        }
        if reservedWords.contains(name.lowercased()) {
            return "\(kind) name \"\(name)\" is reserved"
        }
        if name.lowercased().hasPrefix("sqlite_") { return "\(kind) name \"\(name)\" is reserved by SQLite" }
        return nil
    }
}
