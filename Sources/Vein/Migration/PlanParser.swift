import Foundation

/// Reads a migration plan (docs/migrations.md) and checks everything that can be checked without a store: the
/// structure, each schema, the order of versions, one stage per adjacent pair, that every step names real
/// models and fields, that every expression type-checks against its version, and that each stage can be
/// planned (no type change without a map, say). Every issue is collected, with its JSON path, before failing.
public struct PlanParser {
    private var issues: [ManifestIssue] = []
    private let file: String
    private let directory: String

    /// Parses plan text. `file` names the plan in messages; schema paths are relative to its directory.
    public static func parse(_ text: String, file: String) throws(ManifestError) -> MigrationPlan {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text, json5: true)
        } catch let error as JSONSyntaxError {
            throw ManifestError(file: file, issues: [ManifestIssue(path: "", message: error.message, line: error.line, column: error.column)])
        } catch {
            throw ManifestError(file: file, issues: [ManifestIssue(path: "", message: "\(error)")])
        }
        // By hand: NSString.deletingLastPathComponent traps on a bare name in swift-corelibs-foundation.
        let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? ""
        var parser = PlanParser(file: file, directory: directory)
        if let plan = parser.plan(json), parser.issues.isEmpty { return plan }
        throw ManifestError(file: file, issues: parser.issues)
    }

    /// Reads and checks a plan file.
    public static func load(path: String) throws -> MigrationPlan {
        try parse(try FileInput.readText(path), file: path)
    }

    private init(file: String, directory: String) {
        self.file = file
        self.directory = directory
    }

    private mutating func plan(_ json: JSONValue) -> MigrationPlan? {
        guard let top = json.objectValue else {
            issue("", "expected a plan object ({ vein: 1, app: …, schemas: […], stages: […] }), found \(json.kindName)")
            return nil
        }
        checkKeys(top, allowed: ["vein", "app", "schemas", "stages"], path: "")
        switch top["vein"] {
        case nil: issue("", "missing key \"vein\" (the plan format, \(SchemaManifest.formatVersion))")
        case .int(Int64(SchemaManifest.formatVersion)): break
        case let other?: issue("vein", "expected the integer \(SchemaManifest.formatVersion), found \(JSONWriter.string(other))")
        }
        let app = top["app"]?.stringValue
        if app == nil { issue(top["app"] == nil ? "" : "app", top["app"] == nil ? "missing key \"app\" (the app id the schemas share)" : "expected a string") }

        guard let schemaList = top["schemas"]?.arrayValue, !schemaList.isEmpty else {
            issue(top["schemas"] == nil ? "" : "schemas", top["schemas"] == nil
                  ? "missing key \"schemas\" (the schema versions in order: paths relative to the plan, or inline manifests)"
                  : "expected a non-empty array of schema paths or inline manifests")
            return nil
        }
        var schemas: [SchemaManifest?] = schemaList.enumerated().map { schema($1, path: "schemas[\($0)]") }
        for (i, schema) in schemas.enumerated() {
            guard let schema else { continue }
            if let app, schema.app != app {
                issue("schemas[\(i)]", "schema \(schema.version) is for app \"\(schema.app)\", the plan for \"\(app)\"")
            }
            if i > 0, let previous = schemas[i - 1], !(previous.version < schema.version) {
                issue("schemas[\(i)]", "version \(schema.version) does not come after \(previous.version) (list schemas oldest first)")
                schemas[i] = nil
            }
        }

        let stageList = top["stages"].map { $0.arrayValue } ?? []
        if top["stages"] == nil && schemas.count > 1 { issue("", "missing key \"stages\" (one stage per pair of adjacent schemas)") }
        guard let stageList else {
            issue("stages", "expected an array of stages")
            return nil
        }
        if stageList.count != schemas.count - 1 {
            issue("stages", "expected \(Phrase.count(schemas.count - 1, "stage")) (one per pair of adjacent schemas), found \(stageList.count)")
        }
        var stages: [PlanStage] = []
        for (i, json) in stageList.enumerated() where i + 1 < schemas.count {
            let toPlace = SchemaPlace(index: i + 1, file: schemaList[i + 1].stringValue.map(schemaFile))
            if let from = schemas[i], let to = schemas[i + 1], let stage = stage(json, from: from, to: to, path: "stages[\(i)]", toPlace: toPlace) {
                stages.append(stage)
            }
        }
        guard let app, issues.isEmpty else { return nil }
        return MigrationPlan(file: file, app: app, schemas: schemas.map { $0! }, stages: stages)
    }

    /// A schema of the plan, for issues found in it after it was read (its renames): its index, and its
    /// file when it is given by path.
    private struct SchemaPlace {
        let index: Int
        let file: String?

        /// The issue at `path` in the schema: under the schema's path in the plan, or for a schema file
        /// under the schema's path with the file's own path in the message.
        func issue(_ path: String, _ message: String) -> ManifestIssue {
            guard let file else { return ManifestIssue(path: "schemas[\(index)].\(path)", message: message) }
            return ManifestIssue(path: "schemas[\(index)]", message: "\(file): \(path): \(message)")
        }
    }

    /// A schema path as the plan gives it, relative to the plan's directory.
    private func schemaFile(_ relative: String) -> String {
        relative.hasPrefix("/") || directory.isEmpty ? relative : directory + "/" + relative
    }

    /// A schema given by path (relative to the plan) or inline.
    private mutating func schema(_ json: JSONValue, path: String) -> SchemaManifest? {
        switch json {
        case .string(let relative):
            let full = schemaFile(relative)
            do {
                return try SchemaManifest.load(path: full)
            } catch let error as ManifestError {
                for line in error.lines { issue(path, line) }
            } catch {
                issue(path, "\(error)")
            }
            return nil
        case .object:
            do {
                return try ManifestParser.parse(json: json, file: file, pathPrefix: path)
            } catch {
                issues += error.issues
                return nil
            }
        default:
            issue(path, "expected a schema path or an inline manifest, found \(json.kindName)")
            return nil
        }
    }

    private mutating func stage(_ json: JSONValue, from: SchemaManifest, to: SchemaManifest, path: String, toPlace: SchemaPlace) -> PlanStage? {
        guard let object = json.objectValue else {
            issue(path, "expected a stage object ({ from: …, to: …, steps: […] }), found \(json.kindName)")
            return nil
        }
        checkKeys(object, allowed: ["from", "to", "steps"], path: path)
        let before = issues.count
        for (key, version) in [("from", from.version), ("to", to.version)] {
            if object[key]?.stringValue != version.description {
                issue("\(path).\(key)", object[key] == nil ? "missing key \"\(key)\" (expected \"\(version)\")"
                      : "expected \"\(version)\" (stages follow the schemas in order), found \(JSONWriter.string(object[key]!))")
            }
        }
        let stepsJSON = object["steps"] ?? .array([])
        guard let stepList = stepsJSON.arrayValue else {
            issue("\(path).steps", "expected an array of steps, found \(stepsJSON.kindName)")
            return nil
        }
        let steps = stepList.enumerated().compactMap { step($1, from: from, to: to, path: "\(path).steps[\($0)]") }
        guard issues.count == before else { return nil }
        let checksum = SHA256.hex(from.sha256 + "\n" + to.sha256 + "\n" + JSONWriter.string(stepsJSON.canonicalized()))
        let stage = PlanStage(from: from, to: to, steps: steps, path: path, checksum: checksum)
        // A rename the stage cannot follow is a mistake in the new schema: reported where it is written.
        for rename in Renames.issues(from: from, to: to) {
            issues.append(toPlace.issue(rename.path, rename.message))
        }
        if case .failure(let planIssues) = StagePlanner.plan(stage) {
            for message in planIssues.messages { issue(path, message) }
        }
        return issues.count == before ? stage : nil
    }

    private static let stepKinds = ["map", "delete", "drop", "dropModel"]

    private mutating func step(_ json: JSONValue, from: SchemaManifest, to: SchemaManifest, path: String) -> PlanStep? {
        guard let object = json.objectValue, object.count == 1, let kind = object.keys.first, let body = object[kind] else {
            issue(path, "expected a step: an object with one key, one of \(Self.stepKinds.joined(separator: ", "))")
            return nil
        }
        let bodyPath = "\(path).\(kind)"
        switch kind {
        case "dropModel":
            guard let model = body.stringValue else { issue(bodyPath, "expected a model name"); return nil }
            guard from.model(named: model) != nil else { noModel(model, in: from, path: bodyPath); return nil }
            return .dropModel(model)
        case "map", "delete", "drop":
            guard let fields = body.objectValue else { issue(bodyPath, "expected an object"); return nil }
            let allowed = ["map": ["model", "set"], "delete": ["model", "where"], "drop": ["model", "field"]][kind]!
            checkKeys(fields, allowed: allowed, path: bodyPath)
            guard let model = fields["model"]?.stringValue else { issue(bodyPath, "missing key \"model\" (a model name)"); return nil }
            // A map writes the new schema's model; delete and drop act on the old rows.
            let schema = kind == "map" ? to : from
            guard let modelSchema = schema.model(named: model) else { noModel(model, in: schema, path: "\(bodyPath).model"); return nil }
            switch kind {
            case "map":
                guard let set = fields["set"]?.objectValue, !set.isEmpty else {
                    issue(bodyPath, "missing key \"set\" (fields of \(model) and the expressions that compute them)")
                    return nil
                }
                var assignments: [PlanStep.Assignment] = []
                for member in set {
                    guard modelSchema.field(named: member.key) != nil else {
                        issue("\(bodyPath).set.\(member.key)", "no field '\(member.key)' in \(model) at \(to.version)"
                              + Suggestion.hint(for: member.key, in: modelSchema.fields.map(\.name), quote: "'"))
                        continue
                    }
                    guard let expression = member.value.stringValue else {
                        issue("\(bodyPath).set.\(member.key)", "expected an expression in a string, found \(member.value.kindName)")
                        continue
                    }
                    assignments.append(.init(field: member.key, expression: expression))
                }
                if Renames.source(of: model, renamedFrom: modelSchema.renamedFrom, exists: { from.model(named: $0) != nil }) == nil {
                    issue("\(bodyPath).model", "\(model) is new in \(to.version): there are no old rows to map")
                }
                return .map(model: model, assignments: assignments)
            case "delete":
                guard let condition = fields["where"]?.stringValue else { issue(bodyPath, "missing key \"where\" (a condition on \(model))"); return nil }
                do {
                    _ = try TypeChecker.checkPredicate(condition, model: modelSchema, manifest: from)
                } catch {
                    issue("\(bodyPath).where", "\(error.message) (in \"\(error.excerpt.text)\", column \(error.column + 1))")
                }
                return .delete(model: model, condition: condition)
            default:
                guard let field = fields["field"]?.stringValue else { issue(bodyPath, "missing key \"field\" (a field name)"); return nil }
                guard modelSchema.field(named: field) != nil else {
                    issue("\(bodyPath).field", "no field '\(field)' in \(model) at \(from.version)"
                          + Suggestion.hint(for: field, in: modelSchema.fields.map(\.name), quote: "'"))
                    return nil
                }
                return .drop(model: model, field: field)
            }
        default:
            issue(path, "unknown step \"\(kind)\" (expected one of \(Self.stepKinds.joined(separator: ", ")))"
                  + Suggestion.hint(for: kind, in: Self.stepKinds))
            return nil
        }
    }

    private mutating func noModel(_ name: String, in schema: SchemaManifest, path: String) {
        issue(path, "no model '\(name)' at \(schema.version)" + Suggestion.hint(for: name, in: schema.models.map(\.name), quote: "'"))
    }

    private mutating func issue(_ path: String, _ message: String) {
        issues.append(ManifestIssue(path: path, message: message))
    }

    private mutating func checkKeys(_ object: JSONObject, allowed: [String], path: String) {
        for key in object.keys where !allowed.contains(key) {
            issue(path.isEmpty ? key : "\(path).\(key)", "unknown key \"\(key)\" (expected one of \(allowed.joined(separator: ", ")))"
                  + Suggestion.hint(for: key, in: allowed))
        }
    }
}
