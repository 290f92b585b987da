import Foundation
import VeinCore
import enum Vein.Phrase

/// Tests an app's `SchemaMigrationPlan` the way it will run: objects seeded at an old version in a real
/// (encrypted, temporary) store, `ModelContainer.migrate()` through the engine's migrator, then assertions
/// on a context at the plan's newest version.
///
/// ```swift
/// let tester = MigrationTester(BlogMigration.self, appID: "com.example.blog")
/// try tester.checkPlan()
/// try tester.migrate(from: V0_0_1.self, seed: { try $0.insert(V0_0_1.Post(title: "Hi")) },
///                    verify: { #expect(try $0.fetch(V0_0_2.Post.self).map(\.slug) == ["hi"]) })
/// ```
public struct MigrationTester<Plan: SchemaMigrationPlan> {
    public let appID: String

    public init(_ plan: Plan.Type, appID: String) {
        self.appID = appID
    }

    /// The plan's shape problems: versions not in ascending order, a stage count other than one per adjacent
    /// pair, a stage whose `from`/`to` are not that pair. Empty when the shape is right.
    public static var shapeProblems: [String] {
        let schemas = Plan.schemas, stages = Plan.stages
        var problems: [String] = []
        if schemas.isEmpty { problems.append("the plan lists no schemas") }
        for (older, newer) in zip(schemas, schemas.dropFirst()) where !(older.version < newer.version) {
            problems.append("\(newer) (\(newer.version)) does not come after \(older) (\(older.version)): list schemas oldest first")
        }
        let pairs = max(schemas.count - 1, 0)
        if stages.count != pairs {
            problems.append("\(Phrase.count(stages.count, "stage")) for \(Phrase.count(pairs, "pair")) of adjacent schemas: one stage per pair")
        }
        for (i, (stage, pair)) in zip(stages, zip(schemas, schemas.dropFirst())).enumerated()
        where ObjectIdentifier(stage.from) != ObjectIdentifier(pair.0) || ObjectIdentifier(stage.to) != ObjectIdentifier(pair.1) {
            problems.append("stages[\(i)] goes from \(stage.from) to \(stage.to), expected \(pair.0) to \(pair.1)")
        }
        return problems
    }

    /// Checks the plan's shape, then everything the CLI's `vein migrate check` checks without a store (steps
    /// naming real models and fields, expressions that type-check, stages that can be planned).
    public func checkPlan() throws {
        let problems = Self.shapeProblems
        guard problems.isEmpty else { throw MigrationTesterError.badShape(plan: "\(Plan.self)", problems) }
        _ = try Plan.enginePlan(appID: appID)
    }

    /// Seeds a new store at `old` with `seed` (saved for you), migrates it to the plan's newest version, and
    /// runs `verify` with a context at that version. Returns the migration's report. The store is removed after.
    @discardableResult
    public func migrate<Old: VersionedSchema>(from old: Old.Type, seed: (ModelContext) throws -> Void,
                                              verify: (ModelContext) throws -> Void) throws -> MigrationReport {
        try checkPlan()
        guard Plan.schemas.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(old) }) else {
            throw MigrationTesterError.notInPlan(schema: "\(Old.self)", plan: "\(Plan.self)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vein-migration-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/store.vein", keys = KeyFileKeyProvider(path: folder + "/store.key")
        do {
            let seeded = try ModelContainer(for: old, at: path, appID: appID, keyProvider: keys)
            try seed(seeded.context)
            try seeded.context.save()
        }
        let container = try Plan.schemas.last!.container(Plan.self, at: path, appID: appID, keys: keys)
        let report = try container.migrate()
        try verify(container.context)
        return report
    }
}

extension VersionedSchema {
    /// A container at this schema (called on the plan's newest, an existential metatype).
    fileprivate static func container<P: SchemaMigrationPlan>(_ plan: P.Type, at path: String, appID: String,
                                                             keys: KeyFileKeyProvider) throws -> ModelContainer {
        try ModelContainer(Self.self, migration: plan, at: path, appID: appID, keyProvider: keys)
    }
}

public enum MigrationTesterError: Error, Equatable, CustomStringConvertible {
    case badShape(plan: String, [String])
    case notInPlan(schema: String, plan: String)

    public var description: String {
        switch self {
        case .badShape(let plan, let problems): return "\(plan) is not a well-formed plan:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
        case .notInPlan(let schema, let plan): return "\(schema) is not a schema of \(plan)"
        }
    }
}
