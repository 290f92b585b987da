import Foundation

/// Carries out one planned stage inside the caller's transaction (docs/migrations.md). In order: `delete` steps
/// (through a model context, so delete rules apply); values `map` steps compute in memory; every
/// unhandled-data check, before anything is rebuilt; the rebuild of each changed table by copying (SQLite
/// 3.15 has neither RENAME nor DROP COLUMN); and last a relationship check over the result.
///
/// Invariant (ARCHITECTURE.md I8): it either returns with the database holding exactly the new schema's tables, or throws;
/// the caller's transaction then rolls everything back.
struct StageRunner {
    let database: Database
    let stage: PlanStage
    let plan: StagePlan
    /// Told when each phase begins (`Migrator` turns it into `WorkProgress`).
    var phase: (Phase) -> Void = { _ in }

    enum Phase: Int, CaseIterable {
        case deleting, computing, checking, rebuilding, checkingRelationships
        var label: String {
            switch self {
            case .deleting: return "deleting"
            case .computing: return "computing mapped values"
            case .checking: return "checking for unhandled data"
            case .rebuilding: return "rebuilding tables"
            case .checkingRelationships: return "checking relationships"
            }
        }
    }

    /// The temporary names, never valid model names (those cannot start with an underscore).
    static func newTableName(_ model: String) -> String { "_vein_new_\(model)" }
    static func mapTableName(_ model: String) -> String { "_vein_map_\(model)" }
    static let mapAlias = "\"_vein_map\""
    /// Rows per page when map expressions run in memory.
    static let pageSize = 10_000

    func run() throws -> StageReport {
        var report = StageReport(from: stage.from.version.description, to: stage.to.version.description)
        try database.install(SQLFunctions.self)  // for map and delete conditions compiled to SQL
        phase(.deleting)
        try runDeletes(&report)
        phase(.computing)
        let memoryColumns = try computeMappedValues(&report)
        phase(.checking)
        var violations = try check(memoryColumns: memoryColumns, &report)
        guard violations.isEmpty else { throw MigrationError.unhandledData(stage: stage.name, violations) }
        phase(.rebuilding)
        try rebuild(memoryColumns: memoryColumns, &report)
        phase(.checkingRelationships)
        violations = try relationshipViolations()
        guard violations.isEmpty else { throw MigrationError.unhandledData(stage: stage.name, violations) }
        return report
    }

    // MARK: Steps that run before the rebuild

    private func runDeletes(_ report: inout StageReport) throws {
        for delete in plan.deletes {
            let context = try ObjectContext(database: database, manifest: stage.from)
            let matching = try context.fetch(ObjectFetch(model: delete.model.name, predicate: delete.condition))
            for object in matching { try context.delete(object) }
            try context.applyDeleteRules()  // set-based, as save: counts what cascade adds
            let removed = context.changes().filter { $0.kind == .delete }.count
            try context.save()
            report.rowsDeleted += removed
            let cascaded = removed - matching.count
            report.steps.append(.init(step: delete.step.summary, rows: matching.count,
                                      effect: cascaded > 0 ? "deleted (and \(cascaded) more by delete rules)" : "deleted"))
        }
    }

    /// Evaluates in Swift the `map` expressions SQL cannot compute exactly, into a scratch table per model
    /// that the copy joins. Returns, per model, the columns computed so (name → position in the table).
    private func computeMappedValues(_ report: inout StageReport) throws -> [String: [String: Int]] {
        var result: [String: [String: Int]] = [:]
        for model in plan.models where !model.keepsTable {
            guard let source = model.source else { continue }
            var inMemory: [StagePlan.Column] = []
            for column in model.columns {
                guard case .mapped(let e) = column.source else { continue }
                if try !computesInSQL(e, table: SQL.quoteIdentifier(source.name)) { inMemory.append(column) }
            }
            var mappedCount = 0
            if !inMemory.isEmpty {
                let table = SQL.quoteIdentifier(Self.mapTableName(model.model.name))
                let names = inMemory.indices.map { "\"c\($0)\"" }
                try database.execute("CREATE TABLE \(table) (\(StoreFormat.key) TEXT PRIMARY KEY NOT NULL, \(names.joined(separator: ", ")))")
                let insert = try database.makeStatement("INSERT INTO \(table) VALUES (?\(String(repeating: ", ?", count: names.count)))")
                // Page by id with a fresh context per page, so memory stays flat however many rows there are.
                let page = try database.makeStatement(
                    "SELECT \(StoreFormat.key) FROM \(SQL.quoteIdentifier(source.name)) WHERE \(StoreFormat.key) > ? ORDER BY \(StoreFormat.key) LIMIT \(Self.pageSize)")
                let codecs = inMemory.map { model.model.field(named: $0.name)!.codec }
                var after = ""
                while true {
                    try page.bind([.text(after)])
                    var ids: [String] = []
                    while try page.step() { ids.append(page.string(0)) }
                    page.reset()
                    guard let last = ids.last else { break }
                    after = last
                    let context = try ObjectContext(database: database, manifest: stage.from)
                    for id in ids {
                        guard let object = try context.object(source.name, id: id) else { continue }
                        let evaluator = context.evaluator(for: object)
                        var values: [DatabaseValue] = [.text(object.id)]
                        for (column, codec) in zip(inMemory, codecs) {
                            guard case .mapped(let e) = column.source else { continue }
                            let value: Value
                            var failure: String?
                            do { value = try evaluator.evaluate(e) } catch { failure = "\(error)"; value = .null }
                            // Double arithmetic does not trap, but no cell may hold its infinity or NaN (ValueCodec.mismatch).
                            if case .double(let d) = value, !d.isFinite {
                                failure = "it gives \(d.isNaN ? "NaN" : d < 0 ? "-Infinity" : "Infinity"), which a Double field cannot store"
                            }
                            if let failure {
                                throw MigrationError.unhandledData(stage: stage.name, [UnhandledData(
                                    kind: .mapFailed, model: model.model.name, field: column.name, count: 1, sampleIDs: [object.id],
                                    problem: "the map expression fails (\(failure)) on a row",
                                    remedy: "change the map expression so it cannot fail, or delete such rows first")])
                            }
                            // In the field's normal form, as the context stores it; a value the field refuses (a raw
                            // value outside an enum's) is kept as computed, for the checks that follow to name its row.
                            values.append(((try? codec.normalized(value)) ?? value).databaseValue)
                        }
                        try insert.bind(values)
                        try insert.step()
                        insert.reset()
                        mappedCount += 1
                    }
                }
                result[model.model.name] = Dictionary(uniqueKeysWithValues: inMemory.enumerated().map { ($1.name, $0) })
            }
            for case .map(let name, let assignments) in stage.steps where name == model.model.name {
                let rows = try count(SQL.quoteIdentifier(source.name))
                report.steps.append(.init(step: PlanStep.map(model: name, assignments: assignments).summary, rows: rows,
                                          effect: mappedCount > 0 ? "computed (\(Phrase.rows(mappedCount)) in memory)" : "computed in SQL"))
            }
        }
        return result
    }

    /// Whether a map expression is computed in SQL: when SQL gives exactly Swift's value on every row. One
    /// that can fail (integer overflow, division by zero) is tried on every row first; if it fails on one,
    /// it is computed in memory instead, which stops at the first such row and names it.
    /// A Double result that overflows is an infinity in SQLite as in Swift, which no cell may hold: one
    /// that does so on a row is computed in memory too, to be refused there naming the row.
    private func computesInSQL(_ e: TypedExpression, table: String) throws -> Bool {
        guard let fragment = sqlValue(e, table: table) else { return false }
        do {
            if fragment.canFail { _ = try database.scalar("SELECT count(\(fragment.sql)) FROM \(table)", fragment.arguments) }
            if e.type.unwrapped == .double {
                let infinite = try database.scalar("SELECT count(*) FROM \(table) WHERE abs(\(fragment.sql)) > ?",
                                                   fragment.arguments + [.real(.greatestFiniteMagnitude)])
                if infinite?.int64 != 0 { return false }
            }
            return true
        } catch is EvaluationError {
            return false
        }
    }

    // MARK: Unhandled data

    private func check(memoryColumns: [String: [String: Int]], _ report: inout StageReport) throws -> [UnhandledData] {
        var found: [UnhandledData] = []
        let to = stage.to.version
        for (model, acknowledged) in plan.removedModels {
            let table = SQL.quoteIdentifier(model.name)
            let ids = try sample("SELECT \(table).\(StoreFormat.key) FROM \(table)", [])
            if acknowledged {
                report.rowsDropped += ids.count
                report.steps.append(.init(step: PlanStep.dropModel(model.name).summary, rows: ids.count, effect: "dropped"))
            } else if ids.count > 0 {
                found.append(UnhandledData(kind: .removedModel, model: model.name, field: nil, count: ids.count, sampleIDs: ids.samples,
                                           problem: "\(Phrase.rows(ids.count)) in a model that \(to) removes",
                                           remedy: "add { dropModel: \"\(model.name)\" } to the stage to acknowledge losing them, or set renamedFrom on the model that replaces it"))
            }
        }
        for (model, field, acknowledged) in plan.removedFields {
            let table = SQL.quoteIdentifier(model.name)
            let ids = try sample("SELECT \(table).\(StoreFormat.key) FROM \(table) WHERE \(table).\(SQL.quoteIdentifier(field)) IS NOT NULL", [])
            if acknowledged {
                let drop = PlanStep.drop(model: model.name, field: field)
                if stage.steps.contains(drop) { report.steps.append(.init(step: drop.summary, rows: ids.count, effect: "had a value, dropped")) }
            } else if ids.count > 0 {
                found.append(UnhandledData(kind: .removedField, model: model.name, field: field, count: ids.count, sampleIDs: ids.samples,
                                           problem: "\(Phrase.rows(ids.count, "hold")) a value in a field that \(to) removes",
                                           remedy: "add { drop: { model: \"\(model.name)\", field: \"\(field)\" } } to acknowledge losing them, or set renamedFrom on the field that replaces it"))
            }
        }
        for storage in plan.removedRelationships {
            let linked = Int(try database.scalar(storage.linkedOwnersCountSQL)?.int64 ?? 0)
            if linked > 0 { report.warnings.append("\(storage.model).\(storage.name): relationship removed; the links of \(Phrase.rows(linked)) are dropped") }
        }
        for model in plan.models where !model.keepsTable {
            guard let source = model.source else { continue }
            let from = fromClause(model, memoryColumns: memoryColumns[model.model.name] ?? [:])
            let id = "\(SQL.quoteIdentifier(source.name)).\(StoreFormat.key)"
            for column in model.columns {
                let name = model.model.name
                let value = expression(column, model: model, memoryColumns: memoryColumns[name] ?? [:])
                if case .missing = column.source {
                    let ids = try sample("SELECT \(id) \(from)", [])
                    if ids.count > 0 {
                        found.append(UnhandledData(kind: .missingValue, model: name, field: column.name, count: ids.count, sampleIDs: ids.samples,
                                                   problem: "\(Phrase.rows(ids.count, "get")) no value for a new required field",
                                                   remedy: "give the field a default in \(to), make it optional, or add a map step that sets it"))
                    }
                    continue
                }
                if column.checkNil {
                    let ids = try sample("SELECT \(id) \(from) WHERE (\(value.sql)) IS NULL", value.arguments)
                    if ids.count > 0 {
                        found.append(UnhandledData(kind: .nilInRequiredField, model: name, field: column.name, count: ids.count, sampleIDs: ids.samples,
                                                   problem: "\(Phrase.rows(ids.count, "would hold")) nil in a field that \(to) requires",
                                                   remedy: "add a map step that gives them a value (\(column.name): \"… ?? …\"), or a delete step for those rows"))
                    }
                }
                if let allowed = column.enumValues {
                    let list = SQL.placeholders(allowed.count)
                    let ids = try sample("SELECT \(id) \(from) WHERE (\(value.sql)) IS NOT NULL AND (\(value.sql)) NOT IN (\(list))",
                                         value.arguments + value.arguments + allowed)
                    if ids.count > 0 {
                        let shown = allowed.map { SchemaDDL.sqlLiteral($0).replacingOccurrences(of: "'", with: "\"") }.joined(separator: ", ")
                        found.append(UnhandledData(kind: .valueOutsideEnum, model: name, field: column.name, count: ids.count, sampleIDs: ids.samples,
                                                   problem: "\(Phrase.rows(ids.count, "hold")) values outside the enum's new set [\(shown)]",
                                                   remedy: "add a map step that converts them, or a delete step for those rows"))
                    }
                }
                if column.checkUnique {
                    let ids = try sample("""
                        SELECT \(id) \(from) WHERE (\(value.sql)) IN (SELECT (\(value.sql)) \(from) WHERE (\(value.sql)) IS NOT NULL \
                        GROUP BY 1 HAVING count(*) > 1)
                        """, value.arguments + value.arguments + value.arguments)
                    if ids.count > 0 {
                        found.append(UnhandledData(kind: .duplicateUniqueValue, model: name, field: column.name, count: ids.count, sampleIDs: ids.samples,
                                                   problem: "\(Phrase.rows(ids.count, "share")) a value in a field that \(to) makes unique",
                                                   remedy: "add a map step that makes the values distinct, or a delete step for the duplicates"))
                    }
                }
            }
            for constraint in model.checkedConstraints {
                if let finding = try duplicates(of: constraint, in: model, memoryColumns: memoryColumns[model.model.name] ?? [:]) {
                    found.append(finding)
                }
            }
        }
        return found
    }

    /// The rows whose new values of every column of `constraint` another row has too (a nil never
    /// collides: SQLite's UNIQUE indexes treat NULLs as distinct), with the smallest such combination
    /// as an example.
    private func duplicates(of constraint: [String], in model: StagePlan.ModelPlan, memoryColumns: [String: Int]) throws -> UnhandledData? {
        let values = constraint.map { name in expression(model.columns.first { $0.name == name }!, model: model, memoryColumns: memoryColumns) }
        let aliases = constraint.indices.map { "\"c\($0)\"" }
        let list = aliases.joined(separator: ", ")
        let rows = "WITH v AS (SELECT \(SQL.quoteIdentifier(model.source!.name)).\(StoreFormat.key) AS \"id\", "
            + zip(values, aliases).map { "(\($0.sql)) AS \($1)" }.joined(separator: ", ")
            + " \(fromClause(model, memoryColumns: memoryColumns))) "
        let shared = "SELECT \(list) FROM v WHERE " + aliases.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
            + " GROUP BY \(list) HAVING count(*) > 1"
        let arguments = values.flatMap(\.arguments)
        let ids = try sample(rows + "SELECT v.\"id\" FROM v JOIN (\(shared)) AS d ON "
                             + aliases.map { "v.\($0) = d.\($0)" }.joined(separator: " AND "), arguments)
        guard ids.count > 0, let example = try database.rows(rows + shared + " ORDER BY \(list) LIMIT 1", arguments).first else { return nil }
        let shown = zip(constraint, example).map { name, value in
            let codec = model.model.field(named: name)?.codec ?? .reference
            return JSONWriter.string(codec.json(codec.value(fromDatabase: value)))
        }
        return UnhandledData(kind: .duplicateUniqueCombination, model: model.model.name, field: nil, count: ids.count, sampleIDs: ids.samples,
                             problem: "\(Phrase.rows(ids.count, "share")) values of (\(constraint.joined(separator: ", "))), which "
                                + "\(stage.to.version) makes unique together, such as (\(shown.joined(separator: ", ")))",
                             remedy: "add a map step that makes the combinations distinct, or a delete step for the duplicates")
    }

    // MARK: Rebuild

    private func rebuild(memoryColumns: [String: [String: Int]], _ report: inout StageReport) throws {
        let rebuilt = plan.models.filter { !$0.keepsTable }
        for model in rebuilt {
            let temporary = Self.newTableName(model.model.name)
            try database.execute(SchemaDDL.createTable(model.model, tableName: temporary, in: stage.to))
            guard let source = model.source else { continue }
            var values: [String] = ["\(SQL.quoteIdentifier(source.name)).\(StoreFormat.key)"], arguments: [DatabaseValue] = []
            for column in model.columns {
                let e = expression(column, model: model, memoryColumns: memoryColumns[model.model.name] ?? [:])
                values.append(e.sql)
                arguments += e.arguments
            }
            let names = ["\(StoreFormat.key)"] + model.columns.map { SQL.quoteIdentifier($0.name) }
            try database.execute("""
                INSERT INTO \(SQL.quoteIdentifier(temporary)) (\(names.joined(separator: ", "))) \
                SELECT \(values.joined(separator: ", ")) \(fromClause(model, memoryColumns: memoryColumns[model.model.name] ?? [:]))
                """, arguments)
            let written = database.changes
            report.rowsRead += written
            report.rowsWritten += written
        }
        // Link tables: one whose name and side are unchanged stays; the others are copied under a
        // temporary name (owner and member from the old table's columns for this side).
        var keptLinks = Set<String>(), newLinks: [RelationshipStorage] = []
        for (new, old) in plan.links {
            let name = new.linkTable!
            if let old, old.linkTable == name, old.isCanonical { keptLinks.insert(name); continue }
            let temporary = SQL.quoteIdentifier(Self.newTableName(name))
            try database.execute(new.createLinkTable(named: Self.newTableName(name)))
            if let old, let oldTable = old.linkTable {
                try database.execute("""
                    INSERT OR IGNORE INTO \(temporary) ("owner", "target", "position") \
                    SELECT \(SQL.quoteIdentifier(old.ownerColumn)), \(SQL.quoteIdentifier(old.memberColumn)), "position" FROM \(SQL.quoteIdentifier(oldTable))
                    """)
            }
            newLinks.append(new)
        }
        let oldLinks = Set(RelationshipStorage.all(in: stage.from).compactMap { $0.isCanonical ? $0.linkTable : nil })
        for name in oldLinks.subtracting(keptLinks).sorted() { try database.execute("DROP TABLE \(SQL.quoteIdentifier(name))") }
        for new in newLinks {
            try database.execute("ALTER TABLE \(SQL.quoteIdentifier(Self.newTableName(new.linkTable!))) RENAME TO \(SQL.quoteIdentifier(new.linkTable!))")
            for statement in new.linkIndexStatements { try database.execute(statement) }
        }
        // Old tables go before the new ones take their names: a rename may swap two models' names.
        let replaced = Set(rebuilt.compactMap { $0.source?.name }).union(plan.removedModels.map(\.model.name))
        for name in replaced.sorted() { try database.execute("DROP TABLE \(SQL.quoteIdentifier(name))") }
        for name in memoryColumns.keys.sorted() { try database.execute("DROP TABLE \(SQL.quoteIdentifier(Self.mapTableName(name)))") }
        for model in rebuilt {
            try database.execute("ALTER TABLE \(SQL.quoteIdentifier(Self.newTableName(model.model.name))) RENAME TO \(SQL.quoteIdentifier(model.model.name))")
            for index in SchemaDDL.indexes(for: model.model, in: stage.to) { try database.execute(index.sql(table: model.model.name)) }
        }
    }

    private func relationshipViolations() throws -> [UnhandledData] {
        try StoreVerifier.relationshipFindings(database, stage.to).map { finding in
            UnhandledData(kind: .relationship, model: finding.model, field: finding.field, count: finding.count,
                          sampleIDs: Array(finding.ids.prefix(UnhandledData.sampleLimit)), problem: finding.problem(finding.count),
                          remedy: "delete or map those rows in the stage, so no relationship names a row that is gone")
        }
    }

    // MARK: SQL pieces

    /// SQL for a new column's value over the old row.
    private func expression(_ column: StagePlan.Column, model: StagePlan.ModelPlan, memoryColumns: [String: Int]) -> (sql: String, arguments: [DatabaseValue]) {
        let table = SQL.quoteIdentifier(model.source?.name ?? model.model.name)
        switch column.source {
        case .old(let name): return ("\(table).\(SQL.quoteIdentifier(name))", [])
        case .oldAsReal(let name): return ("CAST(\(table).\(SQL.quoteIdentifier(name)) AS REAL)", [])
        case .constant(let value): return ("?", [value])
        case .missing: return ("NULL", [])
        case .mapped(let e):
            if let position = memoryColumns[column.name] { return ("\(Self.mapAlias).\"c\(position)\"", []) }
            let fragment = sqlValue(e, table: table)!
            return (fragment.sql, fragment.arguments)
        }
    }

    /// SQL for an expression's value when it is exactly Swift's, else nil (then it is computed in memory).
    private func sqlValue(_ e: TypedExpression, table: String) -> SQLCompiler.Fragment? {
        let compiler = SQLCompiler(table: table)
        if e.type == .bool, case .column = e {} else if e.type == .bool {
            // A non-optional Bool is never nil in Swift: true where the condition holds, false elsewhere.
            guard let c = compiler.condition(e), c.isExact else { return nil }
            return SQLCompiler.Fragment(sql: "(CASE WHEN \(c.sql) THEN 1 ELSE 0 END)", arguments: c.arguments, isExact: true, canFail: c.canFail)
        }
        return compiler.value(e)
    }

    private func fromClause(_ model: StagePlan.ModelPlan, memoryColumns: [String: Int]) -> String {
        let table = SQL.quoteIdentifier(model.source?.name ?? model.model.name)
        guard !memoryColumns.isEmpty else { return "FROM \(table)" }
        return "FROM \(table) LEFT JOIN \(SQL.quoteIdentifier(Self.mapTableName(model.model.name))) AS \(Self.mapAlias) ON \(Self.mapAlias).\(StoreFormat.key) = \(table).\(StoreFormat.key)"
    }

    private struct Sample { let count: Int; let samples: [String] }

    /// How many rows a query of ids returns, and the first few in id order.
    private func sample(_ sql: String, _ arguments: [DatabaseValue]) throws -> Sample {
        let total = try database.scalar("SELECT count(*) FROM (\(sql))", arguments)?.int64 ?? 0
        guard total > 0 else { return Sample(count: 0, samples: []) }
        let rows = try database.rows("SELECT * FROM (\(sql)) ORDER BY 1 LIMIT \(UnhandledData.sampleLimit)", arguments)
        return Sample(count: Int(total), samples: rows.compactMap { $0.first?.string })
    }

    private func count(_ table: String, where condition: String? = nil) throws -> Int {
        Int(try database.scalar("SELECT count(*) FROM \(table)" + (condition.map { " WHERE \($0)" } ?? ""))?.int64 ?? 0)
    }
}
