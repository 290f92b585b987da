import Foundation

/// What one stage does to each table, decided from the two schemas and the steps alone, before any row is
/// read. The same plan serves the real run, the dry run and `vein migrate check`.
struct StagePlan {
    /// Where a new column's values come from.
    enum Source {
        /// The old column of this name, as it is.
        case old(String)
        /// An old int column into a double field.
        case oldAsReal(String)
        /// The same value for every row: a default, nil, or an empty to-many.
        case constant(DatabaseValue)
        /// A `map` step's expression over the old row.
        case mapped(TypedExpression)
        /// A required new field with no default and no map: fine only while the table is empty.
        case missing
    }

    struct Column {
        let name: String
        let source: Source
        /// Checks that can fail for this column's source; each one not needed is skipped (and costs nothing).
        var checkNil = false
        var enumValues: [DatabaseValue]?
        var checkUnique = false
        /// The old row's names a `mapped` source reads (fields, and method names, which only widen it).
        var reads: Set<String> = []
    }

    struct ModelPlan {
        let model: ModelSchema
        /// The old model its rows come from (the same name, or its `renamedFrom`); nil for a new model.
        let source: ModelSchema?
        let columns: [Column]
        /// Same name, same tables and indexes, nothing mapped: the table stays as it is.
        let keepsTable: Bool
        /// The compound unique constraints the old rows may break (see `StagePlanner.constraintsToCheck`).
        var checkedConstraints: [[String]] = []
    }

    var models: [ModelPlan] = []
    /// Old models the new schema no longer has, and whether a `dropModel` step acknowledges it.
    var removedModels: [(model: ModelSchema, acknowledged: Bool)] = []
    /// Old fields the new schema no longer has (models that remain), and whether `drop` acknowledges it.
    var removedFields: [(model: ModelSchema, field: String, acknowledged: Bool)] = []
    /// Relationships the new schema no longer has: their links go, with a warning.
    var removedRelationships: [RelationshipStorage] = []
    /// The link tables of the new schema (canonical sides), each with the old relationship it comes from
    /// (nil for a new one); a link table whose name and side are unchanged stays as it is.
    var links: [(new: RelationshipStorage, old: RelationshipStorage?)] = []
    var deletes: [(model: ModelSchema, condition: TypedExpression, step: PlanStep)] = []
}

/// Builds a `StagePlan`, or lists every reason it cannot (each a message for the plan's stage).
enum StagePlanner {
    static func plan(_ stage: PlanStage) -> Result<StagePlan, PlanIssues> {
        var issues: [String] = []
        var plan = StagePlan()
        let old = stage.from, new = stage.to

        // Which old model each new model takes its rows from.
        var sourceOf: [String: ModelSchema] = [:]
        for model in new.models {
            sourceOf[model.name] = Renames.source(of: model.name, renamedFrom: model.renamedFrom, exists: { old.model(named: $0) != nil })
                .flatMap(old.model(named:))
        }
        let carried = Set(sourceOf.values.map(\.name))
        /// The new name of an old model (relationship targets follow renames).
        func newName(ofOld name: String) -> String? { sourceOf.first { $0.value.name == name }?.key }

        var maps: [String: [PlanStep.Assignment]] = [:]
        var drops: Set<[String]> = [], droppedModels: Set<String> = []
        for step in stage.steps {
            switch step {
            case .map(let model, let assignments): maps[model, default: []] += assignments
            case .drop(let model, let field): drops.insert([model, field])
            case .dropModel(let model): droppedModels.insert(model)
            case .delete(let model, let condition):
                guard let m = old.model(named: model) else { continue }  // the parser reported it
                do {
                    let typed = try TypeChecker.checkPredicate(condition, model: m, manifest: old)
                    plan.deletes.append((m, typed, step))
                } catch {
                    issues.append("delete \(model): \(error.message)")
                }
            }
        }

        for model in old.models where !carried.contains(model.name) {
            plan.removedModels.append((model, droppedModels.contains(model.name)))
        }
        for name in droppedModels where carried.contains(name) {
            issues.append("dropModel \"\(name)\": \(new.version) still has this model (its rows would be kept, not dropped)")
        }

        for model in new.models {
            let source = sourceOf[model.name]
            let assignments = maps[model.name] ?? []
            var columns: [StagePlan.Column] = []
            for field in model.fields {
                let previous = source.flatMap { s in
                    Renames.source(of: field.name, renamedFrom: field.renamedFrom, exists: { s.field(named: $0) != nil }).flatMap(s.field(named:))
                }
                if let assignment = assignments.first(where: { $0.field == field.name }), let source {
                    switch mapped(assignment, into: field, of: model, from: source, manifest: old) {
                    case .success(let column): columns.append(column)
                    case .failure(let failure): issues.append(failure.message)
                    }
                } else if let previous {
                    switch copied(previous, into: field, model: model) {
                    case .success(let column): columns.append(column)
                    case .failure(let failure): issues.append(failure.message)
                    }
                } else {
                    columns.append(filled(field))
                }
            }
            var keptToMany = Set<String>()
            for rel in model.relationships {
                let previous = source.flatMap { s in
                    Renames.source(of: rel.name, renamedFrom: rel.renamedFrom, exists: { s.relationship(named: $0) != nil }).flatMap(s.relationship(named:))
                }
                let storage = RelationshipStorage(model: model, relationship: rel, in: new)
                let oldStorage = previous.map { RelationshipStorage(model: source!, relationship: $0, in: old) }
                if let previous, let oldStorage {
                    guard previous.isToMany == rel.isToMany, newName(ofOld: previous.target) == rel.target, oldStorage.kind == storage.kind else {
                        issues.append("\(model.name).\(rel.name) changes from \(describe(previous, oldStorage)) to \(describe(rel, storage)); "
                                      + "a relationship can only be renamed or have its delete rule changed in a stage")
                        continue
                    }
                    if rel.isToMany { keptToMany.insert(previous.name) }
                }
                switch storage.kind {
                case .column:
                    columns.append(StagePlan.Column(name: rel.name, source: previous.map { .old($0.name) } ?? .constant(.null)))
                    if let position = storage.positionColumn {
                        columns.append(StagePlan.Column(name: position, source: oldStorage?.positionColumn.map { .old($0) } ?? .constant(.null)))
                    }
                case .linkTable where storage.isCanonical:
                    plan.links.append((storage, oldStorage))
                default: break
                }
            }
            if let source {
                let kept = Set(columns.compactMap { column -> String? in
                    switch column.source {
                    case .old(let name), .oldAsReal(let name): return name
                    default: return nil
                    }
                })
                // A field a map reads is carried by that map (`summary: "note"`), not lost.
                let read = Set(assignments.flatMap { Self.names(in: $0.expression) })
                for field in source.fields where !kept.contains(field.name) {
                    plan.removedFields.append((source, field.name, drops.contains([source.name, field.name]) || read.contains(field.name)))
                }
                for rel in source.relationships where !kept.contains(rel.name) && !keptToMany.contains(rel.name) {
                    plan.removedRelationships.append(RelationshipStorage(model: source, relationship: rel, in: old))
                }
            }
            let keeps = source?.name == model.name && assignments.isEmpty
                && SchemaDDL.createStatements(for: source!, tableName: model.name, in: old)
                    == SchemaDDL.createStatements(for: model, tableName: model.name, in: new)
            plan.models.append(StagePlan.ModelPlan(model: model, source: source, columns: columns, keepsTable: keeps,
                                                   checkedConstraints: constraintsToCheck(model, columns: columns, source: source)))
        }
        for pair in drops {
            guard let model = old.model(named: pair[0]) else { continue }
            if !plan.removedFields.contains(where: { $0.model.name == model.name && $0.field == pair[1] }) {
                issues.append("drop \(pair[0]).\(pair[1]): \(new.version) still has this field (or carries it by renamedFrom); nothing would be dropped")
            }
        }
        return issues.isEmpty ? .success(plan) : .failure(PlanIssues(messages: issues))
    }

    /// The names an expression mentions (fields, and methods, which can only over-approximate).
    private static func names(in expression: String) -> [String] {
        ((try? ExpressionLexer.tokenize(expression)) ?? []).compactMap { token in
            if case .identifier(let name) = token.kind { return name }
            return nil
        }
    }

    private static func describe(_ rel: RelationshipSchema, _ storage: RelationshipStorage) -> String {
        switch storage.kind {
        case .column: return "to-one \(rel.target)"
        case .reverseColumn: return "to-many \(rel.target) (inverse of a to-one)"
        case .linkTable: return "to-many \(rel.target)\(rel.inverse == nil ? "" : " (many-to-many)")"
        }
    }

    /// A field kept from the old schema: copied, converted where the conversion loses nothing, or refused.
    private static func copied(_ previous: FieldSchema, into field: FieldSchema, model: ModelSchema) -> Result<StagePlan.Column, PlanFailure> {
        var source = StagePlan.Source.old(previous.name)
        let from = storage(previous), to = storage(field)
        // Which type changes copy without a map is a rule between two types (a lossless conversion), not one
        // type's behaviour, so it stays here rather than in a field codec.
        if previous.type == .int && field.type == .double {
            source = .oldAsReal(previous.name)
        } else if !(previous.type == field.type || (from == to && (previous.type == .enum || field.type == .enum))
                    || (previous.type == .uuid && field.type == .string)) {
            return .failure(PlanFailure("\(model.name).\(field.name) changes type from \(previous.type.rawValue) to \(field.type.rawValue); "
                                        + "add a map step that computes the new values: { map: { model: \"\(model.name)\", set: { \(field.name): \"…\" } } }"))
        }
        var column = StagePlan.Column(name: field.name, source: source)
        column.checkNil = previous.isOptional && !field.isOptional
        if field.type == .enum, !(previous.type == .enum && previous.enumValues.allSatisfy(field.enumValues.contains)) {
            column.enumValues = enumValues(field)
        }
        column.checkUnique = field.isUnique && !previous.isUnique
        return .success(column)
    }

    /// The compound unique constraints of `model` that its rows must be checked against: each, unless the
    /// old model had the same constraint over the same columns, copied as they are (then no two rows can
    /// break it). A new model has no rows to check.
    private static func constraintsToCheck(_ model: ModelSchema, columns: [StagePlan.Column], source: ModelSchema?) -> [[String]] {
        guard let source else { return [] }
        return model.uniquenessConstraints.filter { constraint in
            let copied = constraint.compactMap { name -> String? in
                guard case .old(let old)? = columns.first(where: { $0.name == name })?.source else { return nil }
                return old
            }
            return copied.count < constraint.count || !source.uniquenessConstraints.contains { Set($0) == Set(copied) }
        }
    }

    /// A new field: its default, or nil, or nothing at all (a required field with no default).
    private static func filled(_ field: FieldSchema) -> StagePlan.Column {
        if let d = field.defaultValue, let value = try? field.databaseValue(fromJSON: d) {
            var column = StagePlan.Column(name: field.name, source: .constant(value))
            column.checkUnique = field.isUnique
            return column
        }
        return StagePlan.Column(name: field.name, source: field.isOptional ? .constant(.null) : .missing)
    }

    /// A field a `map` step computes: the expression is checked against the old model, its type against
    /// the new field's.
    private static func mapped(_ assignment: PlanStep.Assignment, into field: FieldSchema, of model: ModelSchema,
                               from source: ModelSchema, manifest: SchemaManifest) -> Result<StagePlan.Column, PlanFailure> {
        let typed: TypedExpression
        do {
            let expression = try ExpressionParser.parse(assignment.expression)
            typed = try TypeChecker(manifest: manifest, model: source, source: assignment.expression).check(expression)
        } catch {
            return .failure(PlanFailure("map \(model.name).\(field.name): \(error.message) (in \"\(error.excerpt.text)\", column \(error.column + 1))"))
        }
        let target = ValueType.of(field)
        guard assignable(typed.type, to: target) else {
            return .failure(PlanFailure("map \(model.name).\(field.name): the expression is \(typed.type), the field is \(target)"))
        }
        var column = StagePlan.Column(name: field.name, source: .mapped(typed))
        column.reads = Set(names(in: assignment.expression))
        column.checkNil = !field.isOptional && (typed.type.isOptional || typed.type == .null)
        if field.type == .enum { column.enumValues = enumValues(field) }
        column.checkUnique = field.isUnique
        return .success(column)
    }

    /// Swift's assignment rules, plus what a stored column accepts: an Int into a Double field, a raw
    /// value into an enum field (checked row by row), any value into an optional.
    static func assignable(_ type: ValueType, to target: ValueType) -> Bool {
        if type == .null { return target.isOptional }
        let from = type.unwrapped, to = target.unwrapped
        switch (from, to) {
        case _ where from == to: return true
        case (.int, .double): return true
        case (.string, .enumeration(let values)): return values.allSatisfy { $0.stringValue != nil }
        case (.int, .enumeration(let values)): return values.allSatisfy { $0.intValue != nil }
        case (.enumeration(let a), .enumeration(let b)): return (a.first?.stringValue != nil) == (b.first?.stringValue != nil)
        case (.enumeration(let values), .string): return values.allSatisfy { $0.stringValue != nil }
        case (.enumeration(let values), .int): return values.allSatisfy { $0.intValue != nil }
        case (.uuid, .string): return true
        default: return false
        }
    }

    private static func storage(_ field: FieldSchema) -> String { field.columnType }

    private static func enumValues(_ field: FieldSchema) -> [DatabaseValue] {
        field.enumValues.compactMap { try? field.databaseValue(fromJSON: $0) }
    }
}

/// Every reason a stage cannot be planned, for the plan parser to report under the stage's path.
struct PlanIssues: Error {
    let messages: [String]
}

struct PlanFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
