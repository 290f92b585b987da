import Vein

/// A model as `.schema` shows it: one line per field and relationship, written as the Swift property.
enum SchemaDescription {
    static func lines(_ models: [ModelSchema]) -> [String] {
        models.flatMap { model -> [String] in
            [model.name] + model.fields.map(line) + model.relationships.map(line)
                + model.uniquenessConstraints.map { "  unique together: \($0.joined(separator: ", "))" }
        }
    }

    static func line(_ f: FieldSchema) -> String {
        var line = "  \(f.name): \(f.type.rawValue)" + (f.isOptional ? "?" : "")
        if !f.enumValues.isEmpty {
            let cases: [String] = f.enumValues.map { value in value.stringValue.map { "." + $0 } ?? JSONWriter.string(value) }
            line += " (" + cases.joined(separator: ", ") + ")"
        }
        if let d = f.defaultValue { line += " = " + JSONWriter.string(d) }
        if f.isUnique { line += " unique" }
        if f.isLazy { line += " lazy" }
        if f.preservesValueOnDeletion { line += " preserved on deletion" }
        return line
    }

    static func line(_ r: RelationshipSchema) -> String {
        let type = r.isToMany ? "[\(r.target)]" : "\(r.target)?"
        let inverse = r.inverse.map { " inverse \($0)," } ?? ""
        return "  \(r.name): \(type)\(inverse) delete rule \(r.deleteRule.rawValue)"
    }
}
