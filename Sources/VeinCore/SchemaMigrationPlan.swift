import Foundation
import Vein

/// An app's schema history (docs/migrations.md, docs/app-guide.md): its schema versions oldest first and one stage between each
/// adjacent pair. It is the same plan the CLI runs: `planText(appID:)` writes it as a plan file, so
/// `vein migrate check` in CI checks exactly what the app ships, and `ModelContainer.migrate()` runs it
/// through the engine's migrator (one transaction, the unhandled-data rule, `_vein_migrations`).
public protocol SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { get }
    static var stages: [MigrationStage] { get }
}

extension SchemaMigrationPlan {
    /// The plan file's text (JSON, each schema's canonical manifest inline), as `vein migrate` reads it.
    public static func planText(appID: String) throws -> String {
        let schemas = try self.schemas.map { JSONValue.object(try manifestJSON($0, appID: appID)) }
        let stages = self.stages.map { stage in
            JSONValue.object(JSONObject([("from", .string(stage.from.version.description)),
                                         ("to", .string(stage.to.version.description)),
                                         ("steps", .array(stage.steps.map(\.json)))]))
        }
        let plan = JSONObject([("vein", .int(Int64(SchemaManifest.formatVersion))), ("app", .string(appID)),
                               ("schemas", .array(schemas)), ("stages", .array(stages))])
        return JSONWriter.string(.object(plan), pretty: true) + "\n"
    }

    /// Writes the plan file (see `planText(appID:)`) to `path`.
    public static func write(to path: String, appID: String) throws {
        try Data(try planText(appID: appID).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The engine's plan, read back from the plan text: an app's plan is checked exactly as the CLI checks
    /// a plan file (versions in order, one stage per adjacent pair, steps naming real models and fields,
    /// expressions that type-check). Problems throw `ManifestError`, every one with its place in the plan.
    public static func enginePlan(appID: String) throws -> MigrationPlan {
        try PlanParser.parse(try planText(appID: appID), file: "\(Self.self)")
    }

    private static func manifestJSON(_ schema: any VersionedSchema.Type, appID: String) throws -> JSONObject {
        try JSONParser.parse(try schema.manifest(appID: appID).canonicalText).objectValue!
    }
}

/// What changes between two adjacent schema versions, and what to do with data the automatic mapping
/// cannot carry (docs/migrations.md). A stage with data left unhandled fails the whole migration, with nothing changed.
public struct MigrationStage: Sendable {
    public let from: any VersionedSchema.Type
    public let to: any VersionedSchema.Type
    public let steps: [MigrationStep]
    /// Runs inside the migration's transaction before the stage changes the tables, with a context at the
    /// `from` schema; `didMigrate` after, at the `to` schema. Changes left unsaved are saved after each; a
    /// throw rolls the whole migration back. Swift only: the plan file the CLI runs carries the steps.
    public let willMigrate: (@Sendable (ModelContext) throws -> Void)?
    public let didMigrate: (@Sendable (ModelContext) throws -> Void)?

    /// A stage the automatic mapping covers: fields kept by name (or `@Attribute(originalName:)`), new
    /// optional or defaulted fields, widened types. Anything it would lose fails the migration.
    public static func lightweight(from: any VersionedSchema.Type, to: any VersionedSchema.Type) -> MigrationStage {
        MigrationStage(from: from, to: to, steps: [], willMigrate: nil, didMigrate: nil)
    }

    /// A stage with steps saying what to do with the data the automatic mapping cannot carry:
    /// `.map(Post.self, ["slug": "title.lowercased()"])`, `.delete(Post.self, where: "views < 0")`,
    /// `.drop(Post.self, "views")`, `.dropModel(Note.self)`; and Swift code before and after it.
    public static func custom(from: any VersionedSchema.Type, to: any VersionedSchema.Type,
                              steps: [MigrationStep] = [],
                              willMigrate: (@Sendable (ModelContext) throws -> Void)? = nil,
                              didMigrate: (@Sendable (ModelContext) throws -> Void)? = nil) -> MigrationStage {
        MigrationStage(from: from, to: to, steps: steps, willMigrate: willMigrate, didMigrate: didMigrate)
    }
}

/// One step of a custom stage: the plan vocabulary of docs/migrations.md, one line each. Expressions and conditions
/// are in Vein's expression language over the OLD row (docs/expressions.md).
public struct MigrationStep: Sendable, Equatable {
    let json: JSONValue

    /// Computes fields of `model` (a model of the NEW schema) from the old row.
    public static func map(_ model: String, _ assignments: KeyValuePairs<String, String>) -> MigrationStep {
        let set = JSONObject(assignments.map { ($0.key, JSONValue.string($0.value)) })
        return MigrationStep(json: .object(JSONObject([("map", .object(JSONObject([("model", .string(model)), ("set", .object(set))])))])))
    }

    public static func map<M: PersistentModel>(_ model: M.Type, _ assignments: KeyValuePairs<String, String>) -> MigrationStep {
        map(M.modelName, assignments)
    }

    /// Deletes the old rows of `model` that `condition` holds for, with the model's delete rules.
    public static func delete(_ model: String, where condition: String) -> MigrationStep {
        MigrationStep(json: .object(JSONObject([("delete", .object(JSONObject([("model", .string(model)), ("where", .string(condition))])))])))
    }

    public static func delete<M: PersistentModel>(_ model: M.Type, where condition: String) -> MigrationStep {
        delete(M.modelName, where: condition)
    }

    /// Accepts losing the values of `field`, which the new schema removes from `model` (an OLD model).
    public static func drop(_ model: String, _ field: String) -> MigrationStep {
        MigrationStep(json: .object(JSONObject([("drop", .object(JSONObject([("model", .string(model)), ("field", .string(field))])))])))
    }

    public static func drop<M: PersistentModel>(_ model: M.Type, _ field: String) -> MigrationStep {
        drop(M.modelName, field)
    }

    /// Accepts losing every row of `model`, which the new schema removes.
    public static func dropModel(_ model: String) -> MigrationStep {
        MigrationStep(json: .object(JSONObject([("dropModel", .string(model))])))
    }

    public static func dropModel<M: PersistentModel>(_ model: M.Type) -> MigrationStep {
        dropModel(M.modelName)
    }
}
