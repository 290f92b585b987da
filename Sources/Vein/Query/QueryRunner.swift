/// What a statement produced.
public enum QueryResult: Sendable {
    case objects(ModelSchema, [ModelObject])
    case count(Int)
    /// A write: the context's pending changes after it (saved or not, as the caller decides), which
    /// include what delete rules and inverse relationships changed.
    case changes([ModelContext.Change])
}

/// Runs statements against a context. Writes stay in the context until its owner saves, exactly like
/// `ModelContext` (the REPL saves on `save`), unless `run` is told to save.
public struct QueryRunner {
    public let context: ModelContext

    public init(context: ModelContext) {
        self.context = context
    }

    /// Runs one statement in one transaction: a read sees one snapshot of the store; a write with `save`
    /// reads its rows, computes and saves the changes under one write lock (`BEGIN IMMEDIATE`), so no
    /// other process can change those rows between the read and the write (`set views = views + 1` from
    /// two processes at once never loses an increment). Without `save`, a write's changes stay pending
    /// and `ModelContext.save` detects a row changed meanwhile.
    public func run(_ source: String, save: Bool = false) throws -> QueryResult {
        let statement = try QueryParser.parse(source)
        let saving = save && statement.isWrite
        return try context.transaction(saving ? .immediate : .deferred) {
            let result = try run(statement, source: source)
            if saving { try context.save() }
            return result
        }
    }

    private func run(_ statement: QueryStatement, source: String) throws -> QueryResult {
        let manifest = context.manifest
        func model(_ name: String) throws -> ModelSchema {
            guard let m = manifest.model(named: name) else {
                let column = source.range(of: name).map { source.distance(from: source.startIndex, to: $0.lowerBound) } ?? 0
                throw ExpressionError("no model '\(name)'" + Suggestion.hint(for: name, in: manifest.models.map(\.name), quote: "'"),
                                      column: column, source: source)
            }
            return m
        }
        func descriptor(_ s: QueryStatement.Selection) throws -> (ModelSchema, FetchDescriptor) {
            var target = try model(s.model)
            var d = FetchDescriptor(model: target.name)
            if let traversal = s.traversal {
                guard let rel = target.relationship(named: traversal.relationship) else {
                    throw ExpressionError("no relationship '\(traversal.relationship)' in \(target.name)", column: 0, source: source)
                }
                guard let owner = try context.object(target.name, id: traversal.ownerID) else {
                    throw ContextError.danglingReference(model: target.name, field: "id", id: traversal.ownerID)
                }
                target = try model(rel.target)
                d = FetchDescriptor(model: target.name)
                let ids = context.ids(in: try owner[rel.name])
                if s.sort.isEmpty || !rel.isToMany {
                    d.restrictedTo = ids  // the relationship's own order
                } else if let inverse = rel.inverse, target.relationship(named: inverse)?.isToMany == false {
                    d.owner = (inverse, owner.id)  // pushed down to the inverse column and its index
                } else {
                    d.restrictedTo = ids
                }
            }
            if let predicate = s.predicate {
                d.predicate = try TypeChecker(manifest: manifest, model: target, source: source).checkCondition(predicate)
            }
            d.sortBy = s.sort
            d.fetchLimit = s.limit
            d.fetchOffset = s.offset
            return (target, d)
        }

        switch statement {
        case .fetch(let s):
            let (m, d) = try descriptor(s)
            return .objects(m, try context.fetch(d))
        case .count(let s):
            let (_, d) = try descriptor(s)
            return .count(try context.fetchCount(d))
        case .get(let id):
            for m in manifest.models {
                if let object = try context.object(m.name, id: id) { return .objects(m, [object]) }
            }
            return .objects(manifest.models[0], [])
        case .insert(let name, let values):
            let m = try model(name)
            var evaluated: [String: Value] = [:]
            for (field, expression, column) in values {
                try requireColumn(field, of: m, column: column, source: source)
                evaluated[field] = try constant(expression, model: m)
            }
            _ = try context.insert(m.name, evaluated)
            return .changes(context.changes())
        case .update(let s, let assignments):
            let (m, d) = try descriptor(s)
            let checker = TypeChecker(manifest: manifest, model: m, source: source)
            let typed = try assignments.map { (field, expression, column) in
                try requireColumn(field, of: m, column: column, source: source)
                if case .enumCase(let name, _) = expression { return (field, TypedExpression.literal(.string(name), .string)) }
                if case .array(let items, _) = expression {
                    return (field, TypedExpression.literal(.array(try items.map { try constant($0, model: m) }), .array(.id)))
                }
                return (field, try checker.check(expression))
            }
            let objects = try context.fetch(d)
            for object in objects {
                let evaluator = context.evaluator(for: object)
                // Every value is computed from the row as it was, then written: `set a = b, b = a` swaps.
                let newValues = try typed.map { ($0.0, try evaluator.evaluate($0.1)) }
                for (field, value) in newValues { try object.set(field, value) }
            }
            return .changes(context.changes())
        case .delete(let s):
            let (_, d) = try descriptor(s)
            let objects = try context.fetch(d)
            for object in objects { try context.delete(object) }
            // Everything the statement changed, cascades and inverse updates included.
            return .changes(context.changes())
        }
    }

    /// Insert and update name fields and relationships; anything else is an error pointing at the name.
    private func requireColumn(_ field: String, of model: ModelSchema, column: Int, source: String) throws(ExpressionError) {
        guard model.field(named: field) == nil && model.relationship(named: field) == nil else { return }
        throw ExpressionError("no field '\(field)' in \(model.name)" + Suggestion.hint(for: field, in: model.columnNames, quote: "'"),
                              column: column, source: source)
    }

    /// A value that reads no field: literals, `.case`, arrays of ids, arithmetic on those.
    private func constant(_ expression: Expression, model: ModelSchema) throws -> Value {
        switch expression {
        case .enumCase(let name, _): return .string(name)
        case .array(let items, _): return .array(try items.map { try constant($0, model: model) })
        default:
            let typed = try TypeChecker(manifest: context.manifest, model: model, source: "").check(expression)
            return try Evaluator { _ in
                throw ExpressionError("an inserted value cannot read a field", column: expression.column, source: "")
            }.evaluate(typed)
        }
    }
}

extension TypeChecker {
    /// Checks a parsed condition: it must be a Bool.
    public func checkCondition(_ expression: Expression) throws(ExpressionError) -> TypedExpression {
        let typed = try check(expression)
        guard typed.type == .bool else { throw error("a condition must be a Bool, not \(typed.type)", expression.column) }
        return typed
    }
}
