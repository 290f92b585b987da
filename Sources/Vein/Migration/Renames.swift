/// Which old model, field or relationship each one of a new schema takes its data from, and the
/// `renamedFrom` declarations a stage cannot follow.
///
/// A model, field or relationship keeps the data of the old one of its own name; only when the old schema
/// has no such name does its `renamedFrom` (`@Model(originalName:)`, `@Attribute(originalName:)`) say where
/// the data comes from. So a `renamedFrom` left in place from an earlier version does no harm, but one the
/// old schema could answer both ways, one that names nothing, and two that take the same old data are
/// mistakes that would lose or duplicate data silently: the plan is refused instead.
enum Renames {
    /// The old name whose data goes to `name`: its own when `exists` knows it, else its `renamedFrom`.
    static func source(of name: String, renamedFrom: String?, exists: (String) -> Bool) -> String? {
        if exists(name) { return name }
        return renamedFrom.flatMap { exists($0) ? $0 : nil }
    }

    /// Every `renamedFrom` of `new` that a stage from `old` cannot follow, each with its JSON path in `new`
    /// (`models.Post.fields.headline.renamedFrom`).
    static func issues(from old: SchemaManifest, to new: SchemaManifest) -> [ManifestIssue] {
        var issues = check(new.models.map { Declaration(name: $0.name, renamedFrom: $0.renamedFrom, path: "models.\($0.name)") },
                           against: old.models.map(\.name), kind: .model, scope: "\(old.version)")
        for model in new.models {
            guard let source = Renames.source(of: model.name, renamedFrom: model.renamedFrom, exists: { old.model(named: $0) != nil })
                .flatMap(old.model(named:)) else { continue }  // a new model: no old rows
            let path = "models.\(model.name)", scope = "\(source.name) at \(old.version)"
            issues += check(model.fields.map { Declaration(name: $0.name, renamedFrom: $0.renamedFrom, path: "\(path).fields.\($0.name)") },
                            against: source.fields.map(\.name), kind: .field(oldModel: source.name, newModel: model.name), scope: scope)
            issues += check(model.relationships.map { Declaration(name: $0.name, renamedFrom: $0.renamedFrom, path: "\(path).relationships.\($0.name)") },
                            against: source.relationships.map(\.name), kind: .relationship, scope: scope)
        }
        return issues
    }

    /// A model, field or relationship of the new schema, as far as renames go.
    private struct Declaration {
        let name: String
        let renamedFrom: String?
        let path: String
    }

    private enum Kind: CustomStringConvertible {
        case model, relationship
        /// A field's data can also be copied by a `map` step, and an old field's loss acknowledged by a
        /// `drop`: they name the new model and the old one.
        case field(oldModel: String, newModel: String)

        var description: String {
            switch self {
            case .model: "model"
            case .relationship: "relationship"
            case .field: "field"
            }
        }
    }

    /// The rules for one set of siblings (the models, or one model's fields or relationships). `scope`
    /// names where the old names are, for messages ("Post at 1.0.0").
    private static func check(_ declarations: [Declaration], against oldNames: [String], kind: Kind, scope: String) -> [ManifestIssue] {
        var issues: [ManifestIssue] = []
        var takenBy: [String: String] = [:]  // old name → the new one carrying its data
        // Same names first: an old name that a new one keeps is taken before a rename can claim it too.
        let keptByName = declarations.filter { oldNames.contains($0.name) }
        for declaration in keptByName + declarations.filter({ !oldNames.contains($0.name) }) {
            let place = "\(declaration.path).renamedFrom"
            if let renamed = declaration.renamedFrom, renamed != declaration.name {
                if oldNames.contains(declaration.name) && oldNames.contains(renamed) {
                    issues.append(ManifestIssue(path: place, message: ambiguous(declaration.name, renamed, kind: kind, scope: scope)))
                    continue
                }
                if !oldNames.contains(declaration.name) && !oldNames.contains(renamed) {
                    issues.append(ManifestIssue(path: place, message: "renamedFrom \"\(renamed)\" names no \(kind) of \(scope)"
                                                + Suggestion.hint(for: renamed, in: oldNames, quote: "'")))
                    continue
                }
            }
            guard let source = source(of: declaration.name, renamedFrom: declaration.renamedFrom, exists: oldNames.contains) else { continue }
            guard let earlier = takenBy[source] else {
                takenBy[source] = declaration.name
                continue
            }
            var message = "renamedFrom \"\(source)\": '\(source)' of \(scope) already goes to '\(earlier)', "
                + "and one old \(kind) becomes one new \(kind)"
            if case .field(_, let newModel) = kind {
                message += " (to copy its values, map them: { map: { model: \"\(newModel)\", set: { \(declaration.name): \"\(source)\" } } })"
            }
            issues.append(ManifestIssue(path: place, message: message))
        }
        return issues
    }

    /// Both the new name and the one it says it was renamed from are in the old schema.
    private static func ambiguous(_ name: String, _ renamed: String, kind: Kind, scope: String) -> String {
        var message = "renamedFrom \"\(renamed)\" is ambiguous: \(scope) has both '\(renamed)' and '\(name)'; "
            + "'\(name)' would keep its own old data and that of '\(renamed)' would be lost. Remove renamedFrom"
        if case .field(let oldModel, let newModel) = kind {
            message += ", and to take the values of '\(renamed)' instead, map them and drop the old '\(name)': "
                + "{ map: { model: \"\(newModel)\", set: { \(name): \"\(renamed)\" } } }, { drop: { model: \"\(oldModel)\", field: \"\(name)\" } }"
        }
        return message
    }
}
