import SwiftSyntax

/// The persisted `let`s of a model (`@Attribute(.unique) let id: UUID`, `let firstName: String`). Swift
/// refuses accessors on a `let`, from a macro too, so each stays a stored property: the app's initializer
/// gives it its value, which goes to the row when the instance is inserted (`_$pendLetValues`), and a
/// fetched instance takes the row's value when it is made (`init(_$object:)`). A `let` is the value the
/// instance was made or fetched with: the app cannot assign it, and a later change of the row (another
/// instance's upsert, another context's save) shows in instances made after it, not in this one.
enum LetProperties {
    /// The statements `init(_$object:)` ends with: each `let` set from the row.
    static func assignmentsFromRow(_ properties: [PropertyInfo], columns: [String: Int]) -> String {
        properties.filter(\.isLet).map { property in
            "\n    self.\(property.identifier) = _$backing.field(\"\(property.name)\", column: \(columns[property.name] ?? -1), as: (\(property.type.trimmedDescription)).self)"
        }.joined()
    }

    /// `_$pendLetValues()`, which gives the backing each `let`'s value before an insert reads the
    /// instance's pending values; none when the model has no persisted `let`.
    static func pendingValuesMember(_ properties: [PropertyInfo], columns: [String: Int], access: String) -> DeclSyntax? {
        let lets = properties.filter(\.isLet)
        guard !lets.isEmpty else { return nil }
        let statements = lets.map {
            "    _$backing.setField(\"\($0.name)\", column: \(columns[$0.name] ?? -1), \($0.identifier))"
        }.joined(separator: "\n")
        return """
            /// Gives the backing the `let`s' values (they are stored properties, which the backing cannot read).
            \(raw: access)func _$pendLetValues() {
            \(raw: statements)
            }
            """
    }
}
