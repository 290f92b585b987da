/// A UNIQUE constraint's refusal read back from SQLite's message ("UNIQUE constraint failed: Tag.label",
/// or for a compound constraint "UNIQUE constraint failed: Person.firstName, Person.lastName"), so that
/// import and the CLI say which values collided in the schema's words, not SQLite's.
package struct UniqueViolation: Equatable, Sendable {
    package let model: String
    /// One field for a field's own `unique`, several for a compound constraint.
    package let fields: [String]

    /// Nil for any other message (another constraint, or columns of several tables).
    package init?(message: String) {
        let prefix = "UNIQUE constraint failed: "
        guard message.hasPrefix(prefix) else { return nil }
        let columns = message.dropFirst(prefix.count).components(separatedBy: ", ").map { $0.split(separator: ".", maxSplits: 1) }
        guard let model = columns.first?.first, columns.allSatisfy({ $0.count == 2 && $0[0] == model }) else { return nil }
        self.model = String(model)
        fields = columns.map { String($0[1]) }
    }

    /// "label", "firstName and lastName", "a, b and c".
    package var fieldList: String {
        fields.count == 1 ? fields[0] : fields.dropLast().joined(separator: ", ") + " and " + fields.last!
    }

    /// What the refused row did: "another Tag already has this label (label is unique)".
    package var rule: String {
        "another \(model) already has this \(fieldList) ("
            + (fields.count == 1 ? "\(fieldList) is unique)" : "\(fieldList) are unique together)")
    }
}
