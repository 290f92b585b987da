import Foundation

/// `vein migrate check` (docs/migrations.md): a plan tried without any production store. The parser has already
/// checked structure and types; this seeds synthetic rows at the first version (every field filled in
/// several ways, optionals sometimes nil, every enum value, relationships linked) in an in-memory database
/// and migrates them through every stage, so unhandled data fails in CI instead of in production.
package enum PlanChecker {
    package static let rowsPerModel = 12

    /// Real rows to try the plan on instead of synthetic ones: an export (`vein export`) of a store at the
    /// plan's first version.
    package struct Fixture {
        package let descriptor: Int32
        package let format: InterchangeFormat
        package let name: String

        package init(descriptor: Int32, format: InterchangeFormat, name: String) {
            self.descriptor = descriptor
            self.format = format
            self.name = name
        }
    }

    package static func check(_ plan: MigrationPlan, fixture: Fixture? = nil) throws -> MigrationReport {
        let database = try Database(path: ":memory:", mode: .create, key: nil)
        let first = plan.schemas[0]
        try StoreCreator.layOut(database, manifest: first, now: Date())
        let name = fixture?.name ?? "synthetic rows at \(first.version)"
        let store = Store(path: name, realPath: name, database: database, meta: try StoreMeta.read(from: database, path: name),
                          manifest: first, encryption: .plaintext)
        if let fixture {
            var importer = StoreImporter(store: store)
            importer.format = fixture.format
            try importer.importRecords(from: fixture.descriptor, file: name)
        } else {
            try seed(database, manifest: first)
        }
        return try Migrator(plan: plan).run(on: store)
    }

    static func seed(_ database: Database, manifest: SchemaManifest) throws {
        let context = try ObjectContext(database: database, manifest: manifest)
        var rows: [String: [ModelObject]] = [:]
        for model in manifest.models {
            // A field of a compound constraint gets distinct values too, so the rows keep to the constraint.
            let constrained = Set(model.uniquenessConstraints.joined())
            rows[model.name] = try (0..<rowsPerModel).map { i in
                var values: [String: Value] = [:]
                for field in model.fields {
                    values[field.name] = field.codec.syntheticValue(row: i, unique: field.isUnique || constrained.contains(field.name))
                }
                return try context.insert(model.name, values)
            }
        }
        // Links from the to-one side (the context fills in the inverse), and to-many lists that have no
        // to-one inverse to come from.
        for model in manifest.models {
            for rel in model.relationships {
                let targets = rows[rel.target] ?? []
                let inverse = rel.inverse.flatMap { manifest.model(named: rel.target)?.relationship(named: $0) }
                for (i, owner) in (rows[model.name] ?? []).enumerated() where !targets.isEmpty && i % 4 != 3 {
                    if !rel.isToMany {
                        try owner.set(rel.name, .string(targets[i % targets.count].id))
                    } else if inverse == nil || inverse!.isToMany {
                        let ids = Set([i % targets.count, (i + 1) % targets.count]).sorted().map { Value.string(targets[$0].id) }
                        try owner.set(rel.name, .array(ids))
                    }
                }
            }
        }
        try context.save()
    }
}
