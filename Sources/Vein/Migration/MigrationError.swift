/// Why a migration did not run, or ran and was rolled back. `ErrorReporting` in the CLI turns each case
/// into a message and an exit status.
public enum MigrationError: Error, Equatable, Sendable {
    /// Data the plan does not say what to do with (docs/migrations.md). Nothing was changed.
    case unhandledData(stage: String, [UnhandledData])
    case appMismatch(plan: String, store: String)
    /// The store's version is not one of the plan's (`newerThanPlan` when it is past the last one).
    case versionNotInPlan(store: String, plan: [String], newerThanPlan: Bool)
    /// The store is at a version of the plan, but its schema is not the plan's schema of that version.
    case schemaDiffers(version: String)
    /// Stages that ran on this store and have been edited in the plan since (by `_vein_migrations`'s checksums).
    case changedPlan(stages: [String])
    case targetNotInPlan(String, plan: [String])
    case backwards(store: String, target: String)
}

extension MigrationError: CustomStringConvertible {
    /// The message: one line, or for unhandled data a line per finding after the first.
    public var lines: [String] {
        switch self {
        case .unhandledData(let stage, let findings):
            return ["stage \(stage) would lose or could not carry data; nothing was changed"] + findings.map { "  \($0)" }
        case .appMismatch(let plan, let store): return ["the plan is for app \"\(plan)\", the store belongs to \"\(store)\""]
        case .versionNotInPlan(let version, let versions, let newer):
            return [newer ? "the store is at \(version), newer than the plan's last version \(versions.last ?? "")"
                          : "the store is at \(version), which the plan does not list (\(versions.joined(separator: ", ")))"]
        case .schemaDiffers(let version): return ["the store's schema at \(version) is not the plan's schema \(version)"]
        case .changedPlan(let stages):
            return ["applied stage\(stages.count == 1 ? "" : "s") \(stages.joined(separator: ", ")) changed in the plan since \(stages.count == 1 ? "it" : "they") ran"]
        case .targetNotInPlan(let target, let versions):
            return ["\(target) is not a version of the plan (\(versions.joined(separator: ", ")))"]
        case .backwards(let store, let target):
            return ["the store is at \(store), past the target \(target): migrations only go forward"]
        }
    }

    /// What to change in the plan, each once, for the errors whose fix depends on the data found (the CLI
    /// shows them as its hint).
    public var remedies: [String] {
        guard case .unhandledData(_, let findings) = self else { return [] }
        return findings.map(\.remedy).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The message and, where the plan can fix it, how: an app that prints a failed migration shows both.
    public var description: String {
        (lines + (remedies.isEmpty ? [] : ["fix: " + remedies.joined(separator: "; ")])).joined(separator: "\n")
    }
}

/// One kind of data a stage would lose or could not carry: which model and field, how many rows, and up to
/// five of their ids.
public struct UnhandledData: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case removedField, removedModel, missingValue, nilInRequiredField, valueOutsideEnum, duplicateUniqueValue,
             duplicateUniqueCombination, relationship, mapFailed
    }

    public let kind: Kind
    public let model: String
    public let field: String?
    public let count: Int
    public let sampleIDs: [String]
    /// What is wrong, without the ids (`description` adds them).
    public let problem: String
    /// What to add to the plan.
    public let remedy: String

    package static let sampleLimit = 5

    package init(kind: Kind, model: String, field: String?, count: Int, sampleIDs: [String], problem: String, remedy: String) {
        self.kind = kind
        self.model = model
        self.field = field
        self.count = count
        self.sampleIDs = sampleIDs
        self.problem = problem
        self.remedy = remedy
    }

    /// The same finding with `note` after its remedy.
    package func withRemedyNote(_ note: String) -> UnhandledData {
        UnhandledData(kind: kind, model: model, field: field, count: count, sampleIDs: sampleIDs, problem: problem, remedy: remedy + " (\(note))")
    }

    public var description: String {
        let samples = sampleIDs.isEmpty ? "" : " (\(sampleIDs.joined(separator: ", "))\(count > sampleIDs.count ? ", …" : ""))"
        return "\(field.map { "\(model).\($0)" } ?? model): \(problem)\(samples)"
    }

}
