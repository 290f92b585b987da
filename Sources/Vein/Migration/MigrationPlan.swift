import Foundation

/// A migration plan (docs/migrations.md): the schema versions in order and one stage between each adjacent pair.
/// Built only by `PlanParser`, which has checked everything that can be checked without a store.
public struct MigrationPlan: Sendable {
    /// The plan file as the user named it (for messages).
    public let file: String
    public let app: String
    public let schemas: [SchemaManifest]
    /// `stages[i]` goes from `schemas[i]` to `schemas[i + 1]`.
    public let stages: [PlanStage]

    public var versions: [SchemaVersion] { schemas.map(\.version) }

    public func index(of version: SchemaVersion) -> Int? { schemas.firstIndex { $0.version == version } }
}

/// One stage: what changes between two adjacent schema versions, and the steps that say what to do with
/// data the automatic mapping cannot carry.
public struct PlanStage: Sendable {
    public let from: SchemaManifest
    public let to: SchemaManifest
    public let steps: [PlanStep]
    /// Where the stage is in the plan file (`stages[1]`), for messages.
    public let path: String
    /// SHA-256 over both schemas' canonical forms and the steps' canonical JSON: `_vein_migrations` keeps it,
    /// so a stage edited after it ran is noticed (comments and spacing do not count as edits).
    public let checksum: String

    public var name: String { "\(from.version) → \(to.version)" }
}

public enum PlanStep: Equatable, Sendable {
    /// Computes new fields of `model` (a model of the new schema) from the old row.
    case map(model: String, assignments: [Assignment])
    /// Deletes the old rows of `model` matching the condition, with the model's delete rules.
    case delete(model: String, condition: String)
    /// Acknowledges losing the values of a field the new schema removes.
    case drop(model: String, field: String)
    /// Acknowledges losing every row of a model the new schema removes.
    case dropModel(String)

    public struct Assignment: Equatable, Sendable {
        public let field: String
        public let expression: String
    }

    /// How reports name the step.
    public var summary: String {
        switch self {
        case .map(let model, let assignments): return "map \(model): " + assignments.map { "\($0.field) = \($0.expression)" }.joined(separator: ", ")
        case .delete(let model, let condition): return "delete \(model) where \(condition)"
        case .drop(let model, let field): return "drop \(model).\(field)"
        case .dropModel(let model): return "dropModel \(model)"
        }
    }
}
