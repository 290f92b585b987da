import Foundation

/// `vein migrate check` (SPEC §5): a plan tried without any production store. The parser has already
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
        let context = ModelContext(database: database, manifest: manifest)
        var rows: [String: [ModelObject]] = [:]
        for model in manifest.models {
            rows[model.name] = try (0..<rowsPerModel).map { i in
                var values: [String: Value] = [:]
                for field in model.fields { values[field.name] = syntheticValue(field, row: i) }
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

    /// A value for row `i`: varied, distinct where the field is unique, nil on every third row of an optional.
    static func syntheticValue(_ field: FieldSchema, row i: Int) -> Value {
        if field.isOptional && i % 3 == 2 { return .null }
        switch field.type {
        case .string:
            let samples = ["", "a", "Hello, World", "ümlaut ß", "日本語", "with \"quotes\"", "  spaced  "]
            return .string(field.isUnique ? "\(samples[i % samples.count])\(i)" : samples[i % samples.count])
        case .int:
            let samples: [Int64] = [0, 1, -1, 42, .max, .min, 1_000_000]
            return .int(field.isUnique ? Int64(i) : samples[i % samples.count])
        case .double:
            let samples = [0, 1.5, -2.25, 1e10, 3.141592653589793]
            return .double(field.isUnique ? Double(i) + 0.5 : samples[i % samples.count])
        case .bool: return .bool(i % 2 == 0)
        case .date: return .date(1_700_000_000 + Double(i) * 86_400.25)
        case .data: return .data(Data([UInt8(i), 0, 255]))
        case .uuid: return .string(String(format: "00000000-0000-4000-8000-%012d", i))
        case .json: return .string("{\"n\":\(i)}")
        case .enum:
            let raw = field.enumValues[i % field.enumValues.count]
            return raw.stringValue.map(Value.string) ?? .int(raw.intValue ?? 0)
        }
    }
}
