import Foundation

/// Reads a schema manifest (docs/manifest.md): JSON with JSON5 leniency, fields in shorthand (`"date? lazy"`) or
/// object form. Collects every issue before failing, so one run shows a user everything to fix.
public struct ManifestParser {
    private var issues: [ManifestIssue] = []
    /// SQLite's default SQLITE_MAX_COLUMN is 2000, and every table has the id column too.
    static let maxColumns = 1999
    /// SQLite lets a function take at most 127 arguments; a delete's record passes each preserved field twice.
    static let maxPreservedFields = 60
    /// Every model name the manifest declares, including models whose own definition has errors: a
    /// relationship to such a model is not also reported as pointing nowhere.
    private var declaredModels: Set<String> = []
    /// The same for fields and relationships, per model.
    private var declaredColumns: [String: Set<String>] = [:]

    /// Parses and validates manifest text. `file` names the source in error messages.
    public static func parse(_ text: String, file: String) throws(ManifestError) -> SchemaManifest {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text, json5: true)
        } catch let error as JSONSyntaxError {
            throw ManifestError(file: file, issues: [ManifestIssue(path: "", message: error.message,
                                                                   line: error.line, column: error.column)])
        } catch {
            throw ManifestError(file: file, issues: [ManifestIssue(path: "", message: "\(error)")])
        }
        return try parse(json: json, file: file)
    }

    /// Validates an already parsed manifest (a plan may hold manifests inline). `pathPrefix` is prepended to
    /// every issue's path.
    public static func parse(json: JSONValue, file: String, pathPrefix: String = "") throws(ManifestError) -> SchemaManifest {
        var parser = ManifestParser()
        // Cross references are checked even when parts failed, so one run reports every issue.
        if var manifest = parser.manifest(json, path: pathPrefix) {
            parser.resolveReferences(&manifest, path: pathPrefix)
            // Derived names are only meaningful once every reference resolved.
            if parser.issues.isEmpty {
                for collision in StorageNames.collisions(in: manifest) {
                    parser.issue(parser.join(parser.join(pathPrefix, "models"), collision.model), collision.message)
                }
            }
            if parser.issues.isEmpty { return manifest }
        }
        throw ManifestError(file: file, issues: parser.issues)
    }

    // MARK: Structure

    private mutating func manifest(_ json: JSONValue, path: String) -> SchemaManifest? {
        guard let top = object(json, path: path, expected: "a manifest object ({ vein: 1, app: …, version: …, models: … })")
        else { return nil }
        checkKeys(top, allowed: ["vein", "app", "version", "models"], path: path)

        switch top["vein"] {
        case nil: issue(path, "missing key \"vein\" (the manifest format, \(SchemaManifest.formatVersion))")
        case .int(Int64(SchemaManifest.formatVersion)): break
        case .int(let other)?:
            issue(join(path, "vein"), "unsupported manifest format \(other) (this vein reads format \(SchemaManifest.formatVersion))")
        case let other?: issue(join(path, "vein"), "expected the integer \(SchemaManifest.formatVersion), found \(other.kindName)")
        }

        let app = appID(top["app"], path: join(path, "app"))
        let version = schemaVersion(top["version"], path: join(path, "version"))

        var models: [ModelSchema] = []
        if let modelsJSON = required(top, "models", path: path, expected: "an object of models") {
            let modelsPath = join(path, "models")
            if let entries = object(modelsJSON, path: modelsPath, expected: "an object of models") {
                if entries.isEmpty { issue(modelsPath, "expected at least one model") }
                var seen: [String: String] = [:]
                for member in entries {
                    let modelPath = join(modelsPath, member.key)
                    if let problem = Identifier.problem(with: member.key, kind: "model") { issue(modelPath, problem); continue }
                    if let earlier = seen[member.key.lowercased()] {
                        issue(modelPath, "model \"\(member.key)\" collides with \"\(earlier)\" (SQLite table names ignore case)")
                        continue
                    }
                    seen[member.key.lowercased()] = member.key
                    declaredModels.insert(member.key)
                    if let model = model(named: member.key, member.value, path: modelPath) { models.append(model) }
                }
            }
        }
        // A missing app or version has been reported; placeholders let the models still be checked.
        return SchemaManifest(app: app ?? "", version: version ?? SchemaVersion(0, 0, 0), models: models)
    }

    private mutating func appID(_ json: JSONValue?, path: String) -> String? {
        guard let json else { issue(parent(path), "missing key \"app\" (an application id such as \"com.example.blog\")"); return nil }
        guard let app = json.stringValue else { issue(path, "expected a string, found \(json.kindName)"); return nil }
        let allowed = app.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
        }
        guard !app.isEmpty, allowed else {
            issue(path, "\"\(app)\" is not an application id (letters, digits, '.', '_' and '-', such as \"com.example.blog\")")
            return nil
        }
        return app
    }

    private mutating func schemaVersion(_ json: JSONValue?, path: String) -> SchemaVersion? {
        guard let json else { issue(parent(path), "missing key \"version\" (a semantic version such as \"0.0.1\")"); return nil }
        guard let text = json.stringValue else { issue(path, "expected a version string such as \"0.0.1\", found \(json.kindName)"); return nil }
        guard let version = SchemaVersion(text) else {
            issue(path, "\"\(text)\" is not a semantic version (expected MAJOR.MINOR.PATCH, such as \"0.0.1\")")
            return nil
        }
        return version
    }

    private mutating func model(named name: String, _ json: JSONValue, path: String) -> ModelSchema? {
        guard let body = object(json, path: path, expected: "a model object ({ fields: …, relationships: … })") else { return nil }
        checkKeys(body, allowed: ["fields", "relationships", "indexes", "unique", "renamedFrom"], path: path)
        var model = ModelSchema(name: name)
        var columns: [String: String] = [:]  // lowercased → declared, across fields and relationships

        func claim(_ column: String, kind: String, path: String) -> Bool {
            declaredColumns[name, default: []].insert(column)
            if let problem = Identifier.problem(with: column, kind: kind) { issue(path, problem); return false }
            if let earlier = columns[column.lowercased()] {
                issue(path, "\"\(column)\" collides with \"\(earlier)\" in \(name) (column names ignore case)")
                return false
            }
            columns[column.lowercased()] = column
            return true
        }

        if let fieldsJSON = body["fields"], let fields = object(fieldsJSON, path: join(path, "fields"), expected: "an object of fields") {
            for member in fields {
                let fieldPath = join(join(path, "fields"), member.key)
                guard claim(member.key, kind: "field", path: fieldPath) else { continue }
                if let field = field(named: member.key, member.value, path: fieldPath) { model.fields.append(field) }
            }
        }
        if let relsJSON = body["relationships"],
           let rels = object(relsJSON, path: join(path, "relationships"), expected: "an object of relationships") {
            for member in rels {
                let relPath = join(join(path, "relationships"), member.key)
                guard claim(member.key, kind: "relationship", path: relPath) else { continue }
                if let rel = relationship(named: member.key, member.value, path: relPath) { model.relationships.append(rel) }
            }
        }
        let preserved = model.fields.filter(\.preservesValueOnDeletion).count
        if preserved > Self.maxPreservedFields {
            issue(path, "\(name) marks \(preserved) fields preserveValueOnDeletion; at most \(Self.maxPreservedFields) can be (what a delete keeps goes through one SQL function call)")
        }
        let columnCount = model.fields.count + model.relationships.count
        if columnCount > Self.maxColumns {
            issue(path, "\(name) has \(columnCount) fields and relationships; SQLite allows at most \(Self.maxColumns) (plus the id)")
        }
        if let indexesJSON = body["indexes"] {
            model.indexes = fieldLists(indexesJSON, path: join(path, "indexes"), example: "[[\"publishedAt\"], [\"title\", \"views\"]]",
                                       of: "indexes", nameIsAList: true)
        }
        if let uniqueJSON = body["unique"] {
            model.uniquenessConstraints = fieldLists(uniqueJSON, path: join(path, "unique"), example: "[[\"firstName\", \"lastName\"]]",
                                                     of: "unique constraints", nameIsAList: false)
        }
        if let renamed = body["renamedFrom"] { model.renamedFrom = identifierString(renamed, path: join(path, "renamedFrom")) }
        return model
    }

    // MARK: Fields

    private mutating func field(named name: String, _ json: JSONValue, path: String) -> FieldSchema? {
        switch json {
        case .string(let spec):
            guard var field = typeSpec(spec, name: name, path: path) else { return nil }
            if field.type == .enum { issue(path, "an enum field needs its values: { type: \"enum\", values: [\"a\", \"b\"] }") }
            field.enumValues = []
            return field
        case .object(let body):
            checkKeys(body, allowed: ["type", "optional", "lazy", "unique", "preserveValueOnDeletion", "default", "values", "renamedFrom"], path: path)
            guard let typeJSON = required(body, "type", path: path, expected: "a type") else { return nil }
            guard let spec = typeJSON.stringValue else {
                issue(join(path, "type"), "expected a type string, found \(typeJSON.kindName)")
                return nil
            }
            guard var field = typeSpec(spec, name: name, path: join(path, "type")) else { return nil }
            if let v = flag(body, "optional", path: path) { field.isOptional = field.isOptional || v }
            if let v = flag(body, "lazy", path: path) { field.isLazy = field.isLazy || v }
            if let v = flag(body, "unique", path: path) { field.isUnique = field.isUnique || v }
            if let v = flag(body, "preserveValueOnDeletion", path: path) { field.preservesValueOnDeletion = v }
            if let renamed = body["renamedFrom"] { field.renamedFrom = identifierString(renamed, path: join(path, "renamedFrom")) }

            if field.type == .enum {
                field.enumValues = enumValues(body["values"], path: path) ?? []
                if field.enumValues.isEmpty { return nil }
            } else if body["values"] != nil {
                issue(join(path, "values"), "only enum fields take values (this field is \(field.type.rawValue))")
            }
            if let defaultJSON = body["default"] {
                do {
                    // Kept in normal form (2 → 2.0 for a double, dates in the store's format, UUIDs
                    // uppercase), so defaults that mean the same give the same canonical text.
                    let codec = field.codec
                    let value = try codec.value(fromJSON: defaultJSON)
                    field.defaultValue = value == .null ? nil : codec.json(value)
                } catch {
                    issue(join(path, "default"), "expected \(error.expectation)")
                }
            }
            return field
        default:
            issue(path, "expected a type string such as \"string?\" or an object with a \"type\", found \(json.kindName)")
            return nil
        }
    }

    /// `"<type>[?] [lazy] [unique]"`.
    private mutating func typeSpec(_ spec: String, name: String, path: String) -> FieldSchema? {
        var words = spec.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else {
            issue(path, "empty type (expected one of \(FieldType.namesList))")
            return nil
        }
        var typeWord = words.removeFirst()
        let optional = typeWord.hasSuffix("?")
        if optional { typeWord.removeLast() }
        guard let type = FieldType(rawValue: typeWord) else {
            let suggestion = FieldType.aliases[typeWord.lowercased()].map { " (did you mean \"\($0.rawValue)\"?)" }
                ?? Suggestion.hint(for: typeWord, in: FieldType.allCases.map(\.rawValue))
            issue(path, "unknown type \"\(typeWord)\" (expected one of \(FieldType.namesList))" + suggestion)
            return nil
        }
        var field = FieldSchema(name: name, type: type, isOptional: optional)
        for word in words {
            switch word {
            case "lazy": field.isLazy = true
            case "unique": field.isUnique = true
            case "?": field.isOptional = true
            default:
                issue(path, "unknown modifier \"\(word)\" (expected lazy or unique)" + Suggestion.hint(for: word, in: ["lazy", "unique"]))
                return nil
            }
        }
        return field
    }

    private mutating func enumValues(_ json: JSONValue?, path: String) -> [JSONValue]? {
        let valuesPath = join(path, "values")
        guard let json else {
            issue(path, "an enum field needs \"values\": an array of strings or of integers")
            return nil
        }
        guard let items = json.arrayValue, !items.isEmpty else {
            issue(valuesPath, "expected a non-empty array of strings or of integers, found \(json.kindName)")
            return nil
        }
        let allStrings = items.allSatisfy { $0.stringValue != nil }
        let allInts = items.allSatisfy { $0.intValue != nil }
        guard allStrings || allInts else {
            issue(valuesPath, "expected values that are all strings or all integers")
            return nil
        }
        var seen: [JSONValue] = []
        for (i, item) in items.enumerated() {
            if seen.contains(item) { issue("\(valuesPath)[\(i)]", "duplicate enum value \(JSONWriter.string(item))"); return nil }
            seen.append(item)
        }
        return items
    }

    // MARK: Relationships

    private mutating func relationship(named name: String, _ json: JSONValue, path: String) -> RelationshipSchema? {
        switch json {
        case .string(let target):
            // Shorthand: "Model" is a to-one, "[Model]" a to-many.
            if target.hasPrefix("[") && target.hasSuffix("]") {
                return RelationshipSchema(name: name, target: String(target.dropFirst().dropLast()), isToMany: true)
            }
            return RelationshipSchema(name: name, target: target)
        case .object(let body):
            checkKeys(body, allowed: ["to", "many", "inverse", "deleteRule", "renamedFrom"], path: path)
            guard let toJSON = required(body, "to", path: path, expected: "the target model's name") else { return nil }
            guard let target = toJSON.stringValue else {
                issue(join(path, "to"), "expected a model name, found \(toJSON.kindName)")
                return nil
            }
            var rel = RelationshipSchema(name: name, target: target)
            rel.isToMany = flag(body, "many", path: path) ?? false
            if let inverse = body["inverse"] { rel.inverse = identifierString(inverse, path: join(path, "inverse")) }
            if let ruleJSON = body["deleteRule"] {
                let names = DeleteRule.allCases.map(\.rawValue)
                if let text = ruleJSON.stringValue, let rule = DeleteRule(rawValue: text) {
                    rel.deleteRule = rule
                } else {
                    let expected = "expected one of \(names.joined(separator: ", "))"
                    if let text = ruleJSON.stringValue {
                        issue(join(path, "deleteRule"), "unknown delete rule \"\(text)\" (\(expected))" + Suggestion.hint(for: text, in: names))
                    } else {
                        issue(join(path, "deleteRule"), "\(expected), found \(ruleJSON.kindName)")
                    }
                }
            }
            if let renamed = body["renamedFrom"] { rel.renamedFrom = identifierString(renamed, path: join(path, "renamedFrom")) }
            return rel
        default:
            issue(path, "expected a relationship object ({ to: \"Model\", many: true, inverse: … }), found \(json.kindName)")
            return nil
        }
    }

    // MARK: Indexes and unique constraints

    /// A model's `indexes` or `unique`: a list of lists of field names (a lone name is a list of one when
    /// `nameIsAList`; in `unique`, `["a", "b"]` would read as one constraint, so it is refused).
    private mutating func fieldLists(_ json: JSONValue, path: String, example: String, of kind: String, nameIsAList: Bool) -> [[String]] {
        guard let items = json.arrayValue else {
            issue(path, "expected an array of \(kind) such as \(example), found \(json.kindName)")
            return []
        }
        var result: [[String]] = []
        for (i, item) in items.enumerated() {
            let itemPath = "\(path)[\(i)]"
            let names: [JSONValue]
            switch item {
            case .string where nameIsAList: names = [item]
            case .array(let a): names = a
            default:
                let such = nameIsAList ? "" : " such as \(example.dropFirst().dropLast())"
                issue(itemPath, "expected an array of field names\(such), found \(item.kindName)")
                continue
            }
            let strings = names.compactMap(\.stringValue)
            guard !strings.isEmpty, strings.count == names.count else {
                issue(itemPath, "expected a non-empty array of field names")
                continue
            }
            result.append(strings)
        }
        return result
    }

    // MARK: Cross references

    /// Checks what needs the whole manifest: relationship targets and inverses, index columns. Fills in the
    /// inverse on the side that did not declare it, so both sides always name each other.
    private mutating func resolveReferences(_ manifest: inout SchemaManifest, path: String) {
        let modelNames = manifest.models.map(\.name)
        for m in manifest.models.indices {
            let model = manifest.models[m]
            let modelPath = join(join(path, "models"), model.name)
            for r in model.relationships.indices {
                let rel = manifest.models[m].relationships[r]
                let relPath = join(join(modelPath, "relationships"), rel.name)
                guard let t = manifest.models.firstIndex(where: { $0.name == rel.target }) else {
                    if declaredModels.contains(rel.target) { continue }  // its own errors are reported
                    issue(join(relPath, "to"), "relationship target \"\(rel.target)\" is not a model of this schema"
                          + Suggestion.hint(for: rel.target, in: modelNames))
                    continue
                }
                guard let inverseName = rel.inverse else { continue }
                let target = manifest.models[t]
                guard let i = target.relationships.firstIndex(where: { $0.name == inverseName }) else {
                    if declaredColumns[target.name, default: []].contains(inverseName) { continue }
                    issue(join(relPath, "inverse"), "inverse \"\(inverseName)\" is not a relationship of \(target.name)"
                          + Suggestion.hint(for: inverseName, in: target.relationships.map(\.name)))
                    continue
                }
                let inverse = target.relationships[i]
                if inverse.target != model.name {
                    issue(join(relPath, "inverse"), "inverse \"\(inverseName)\" of \(target.name) points to \(inverse.target), not back to \(model.name)")
                } else if let back = inverse.inverse, back != rel.name {
                    issue(join(relPath, "inverse"), "inverse \"\(inverseName)\" of \(target.name) names \"\(back)\" as its inverse, not \"\(rel.name)\"")
                } else {
                    manifest.models[t].relationships[i].inverse = rel.name
                }
            }
            checkIndexes(model, path: join(modelPath, "indexes"))
            checkUniquenessConstraints(model, path: join(modelPath, "unique"))
        }
    }

    private mutating func checkIndexes(_ model: ModelSchema, path: String) {
        for (i, index) in model.indexes.enumerated() {
            let indexPath = "\(path)[\(i)]"
            checkColumns(index, of: model, path: indexPath, within: "one index", toMany: "which cannot be indexed")
            if model.indexes[..<i].contains(index) { issue(indexPath, "duplicate index on \(index.joined(separator: ", "))") }
        }
    }

    /// Each compound constraint: two or more distinct columns (a field's own constraint is its `unique`),
    /// none a to-many (which has no column), and no two constraints on the same set of columns.
    private mutating func checkUniquenessConstraints(_ model: ModelSchema, path: String) {
        for (i, constraint) in model.uniquenessConstraints.enumerated() {
            let constraintPath = "\(path)[\(i)]"
            guard constraint.count > 1 else {
                issue(constraintPath, "[\"\(constraint[0])\"] names one field: make \"\(constraint[0])\" itself unique "
                      + "(unique: true, or \"unique\" after its type) and remove this list; a unique list names two or more fields")
                continue
            }
            checkColumns(constraint, of: model, path: constraintPath, within: "one unique constraint",
                         toMany: "which has no column a unique constraint can cover; use fields or to-one relationships")
            if model.uniquenessConstraints[..<i].contains(where: { Set($0) == Set(constraint) }) {
                issue(constraintPath, "duplicate unique constraint on \(constraint.joined(separator: ", "))")
            }
        }
    }

    /// The names of an index or a unique constraint: each once, each a field or a to-one relationship.
    private mutating func checkColumns(_ names: [String], of model: ModelSchema, path: String, within: String, toMany: String) {
        var seen = Set<String>()
        for name in names {
            if !seen.insert(name).inserted { issue(path, "\"\(name)\" appears twice in \(within)") }
            if model.field(named: name) != nil { continue }
            if let rel = model.relationship(named: name) {
                if rel.isToMany { issue(path, "\"\(name)\" is a to-many relationship, \(toMany)") }
                continue
            }
            if declaredColumns[model.name, default: []].contains(name) { continue }
            issue(path, "\"\(name)\" is not a field of \(model.name)" + Suggestion.hint(for: name, in: model.columnNames))
        }
    }

    // MARK: Helpers

    private mutating func issue(_ path: String, _ message: String) {
        issues.append(ManifestIssue(path: path, message: message))
    }

    private func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    private func parent(_ path: String) -> String {
        guard let dot = path.lastIndex(of: ".") else { return "" }
        return String(path[..<dot])
    }

    private mutating func object(_ json: JSONValue, path: String, expected: String) -> JSONObject? {
        guard let object = json.objectValue else {
            issue(path, "expected \(expected), found \(json.kindName)")
            return nil
        }
        return object
    }

    private mutating func required(_ object: JSONObject, _ key: String, path: String, expected: String) -> JSONValue? {
        guard let value = object[key] else {
            issue(path, "missing key \"\(key)\" (\(expected))")
            return nil
        }
        return value
    }

    private mutating func checkKeys(_ object: JSONObject, allowed: [String], path: String) {
        for key in object.keys where !allowed.contains(key) {
            issue(join(path, key), "unknown key \"\(key)\" (expected one of \(allowed.joined(separator: ", ")))"
                  + Suggestion.hint(for: key, in: allowed))
        }
    }

    private mutating func flag(_ object: JSONObject, _ key: String, path: String) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let b = value.boolValue else {
            issue(join(path, key), "expected true or false, found \(value.kindName)")
            return nil
        }
        return b
    }

    private mutating func identifierString(_ json: JSONValue, path: String) -> String? {
        guard let s = json.stringValue, !s.isEmpty else {
            issue(path, "expected a name, found \(json.kindName)")
            return nil
        }
        return s
    }
}

extension SchemaManifest {
    /// Reads and validates a manifest file. A missing or unreadable file is a `FileError`, a bad manifest
    /// a `ManifestError` naming `displayName` (the path as the user wrote it).
    public static func load(path: String) throws -> SchemaManifest {
        let text = try FileInput.readText(path)
        return try ManifestParser.parse(text, file: path)
    }
}
