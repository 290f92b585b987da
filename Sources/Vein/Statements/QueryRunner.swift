/// What a statement produced.
package enum QueryResult: Sendable {
    case objects(ModelSchema, [ModelObject])
    case count(Int)
    /// A write: the changes this statement made (saved or not, as the caller decides), including what delete
    /// rules and inverse relationships changed; not those earlier statements left pending in the context.
    case changes([ObjectContext.Change])
}

/// Runs statements against a context. Writes stay in the context until its owner saves, exactly like
/// `ObjectContext` (the REPL saves on `save`), unless `run` is told to save.
package struct QueryRunner {
    package let context: ObjectContext

    package init(context: ObjectContext) {
        self.context = context
    }

    /// Runs one statement in one transaction: a read sees one snapshot of the store; a write with `save`
    /// reads its rows, computes and saves the changes under one write lock (`BEGIN IMMEDIATE`), so no
    /// other process can change those rows between the read and the write (`set views = views + 1` from
    /// two processes at once never loses an increment: ARCHITECTURE.md I4). Without `save`, a write's changes stay pending
    /// and `ObjectContext.save` detects a row changed meanwhile.
    package func run(_ source: String, save: Bool = false) throws -> QueryResult {
        try run(try QueryParser.parse(source), source: source, save: save)
    }

    /// `run(source)` of a statement parsed already (the REPL parses each to tell whether it is complete).
    package func run(_ statement: QueryStatement, source: String, save: Bool = false) throws -> QueryResult {
        let saving = save && statement.isWrite
        // An insert that names no other row reads nothing of the store: no transaction to open and check
        // the schema of (a REPL script of 100,000 inserts spent a tenth of its time on them; its save
        // checks), and it changes nothing but its own new object: no changes to record and find.
        if !saving, case .insert(let name, let values) = statement, let model = context.manifest.model(named: name),
           !values.contains(where: { model.relationship(named: $0.field) != nil }) {
            let (inserted, _) = try insert(model, values, source: source)
            return .changes([ObjectContext.Change(kind: .insert, model: model.name, id: inserted.id, fields: [])])
        }
        return try context.transaction(saving ? .immediate : .deferred) {
            let result = try run(statement, source: source)
            if saving { try context.save() }
            return result
        }
    }

    private func run(_ statement: QueryStatement, source: String) throws -> QueryResult {
        try context.recordingChanges { record in try run(statement, source: source, record: record) }
    }

    private func run(_ statement: QueryStatement, source: String, record: ObjectContext.ChangeRecord) throws -> QueryResult {
        let manifest = context.manifest
        /// What the statement changed, and the pending changes of the objects it changed itself (an object
        /// updated again has a pending change that may look the same as before). Found among the objects
        /// it touched: its cost does not grow with what else is pending.
        func changes(touching touched: [String]) -> QueryResult {
            .changes(context.changes(since: record, alsoOf: Set(touched)))
        }
        switch statement {
        case .fetch(let s):
            let (m, d) = try descriptor(s, source: source)
            return .objects(m, try context.fetch(d))
        case .count(let s):
            let (_, d) = try descriptor(s, source: source)
            return .count(try context.fetchCount(d))
        case .get(let id):
            for m in manifest.models {
                if let object = try context.object(m.name, id: id) { return .objects(m, [object]) }
            }
            return .objects(manifest.models[0], [])
        case .insert(let name, let values):
            let m = try model(name, source: source)
            let (inserted, evaluated) = try insert(m, values, source: source)
            // The objects it links to change too (their inverse), though a change of theirs may be pending.
            let linked = m.relationships.flatMap { Self.ids(in: evaluated[$0.name]) }
            return changes(touching: [inserted.id] + linked)
        case .update(let s, let assignments):
            let (m, d) = try descriptor(s, source: source)
            let checker = TypeChecker(manifest: manifest, model: m, source: source)
            // Checked before any row is read, so a mistake is reported whether or not a row matches.
            let typed = try assignments.map { (field, expression, column) in
                (field, try assignment(field, expression, column: column, checker: checker))
            }
            let objects = try context.fetch(d)
            var linked: [String] = []
            // Every value of every row is computed from the rows as they were, then written: `set a = b, b = a`
            // swaps, and a value that traps (overflow, division by zero) on any row leaves every row as it was,
            // in a context that stays open after the error (the REPL) as in one that is dropped.
            let planned = try objects.map { object in
                let evaluator = context.evaluator(for: object)
                return (object, try typed.map { ($0.0, try evaluator.evaluate($0.1)) })
            }
            for (object, newValues) in planned {
                for (field, value) in newValues { try object.set(field, value) }
                linked += newValues.filter { m.relationship(named: $0.0) != nil }.flatMap { Self.ids(in: $0.1) }
            }
            return changes(touching: objects.map(\.id) + linked)
        case .delete(let s):
            let (_, d) = try descriptor(s, source: source)
            let objects = try context.fetch(d)
            for object in objects { try context.delete(object) }
            try context.applyDeleteRules()  // set-based: what cascade adds is listed, a deny refuses now
            // Everything the statement changed, cascades and inverse updates included; an object inserted
            // and not yet saved leaves no pending change behind, but the statement still deleted it.
            guard case .changes(let own) = changes(touching: objects.map(\.id)) else { return .changes([]) }
            let listed = Set(own.map(\.id))
            let unsaved = objects.filter { !listed.contains($0.id) }
            return .changes(unsaved.map { ObjectContext.Change(kind: .delete, model: $0.modelName, id: $0.id, fields: []) } + own)
        }
    }


    /// Inserts an object of `model` with the values written in an insert statement, each checked as Swift
    /// checks the assignment and evaluated (they cannot read a field: there is no row yet); the object and
    /// the values by name.
    private func insert(_ model: ModelSchema, _ values: [(field: String, value: ParsedExpression, column: Int)],
                        source: String) throws -> (ModelObject, [String: Value]) {
        let checker = TypeChecker(manifest: context.manifest, model: model, source: source)
        var evaluated: [String: Value] = [:]
        for (field, expression, column) in values {
            let typed = try assignment(field, expression, column: column, checker: checker)
            let noRow = ExpressionError("an inserted value cannot read a field", column: expression.column, source: source)
            evaluated[field] = try Evaluator(Evaluator.Scope(read: { _ in throw noRow }, members: { _ in throw noRow })).evaluate(typed)
        }
        return (try context.insert(model.name, evaluated), evaluated)
    }

    /// The ids a relationship value names.
    private static func ids(in value: Value?) -> [String] {
        switch value {
        case .string(let id): return [id]
        case .array(let items): return items.flatMap { ids(in: $0) }
        default: return []
        }
    }

    private func model(_ name: String, source: String) throws -> ModelSchema {
        let manifest = context.manifest
        guard let m = manifest.model(named: name) else {
            let column = source.range(of: name).map { source.distance(from: source.startIndex, to: $0.lowerBound) } ?? 0
            throw ExpressionError("no model '\(name)'" + Suggestion.hint(for: name, in: manifest.models.map(\.name), quote: "'"),
                                  column: column, source: source)
        }
        return m
    }

    private func descriptor(_ s: QueryStatement.Selection, source: String) throws -> (ModelSchema, ObjectFetch) {
        let manifest = context.manifest
        var target = try self.model(s.model, source: source)
        var d = ObjectFetch(model: target.name)
        if let traversal = s.traversal {
            guard let rel = target.relationship(named: traversal.relationship) else {
                throw ExpressionError("no relationship '\(traversal.relationship)' in \(target.name)", column: 0, source: source)
            }
            guard let owner = try context.object(target.name, id: traversal.ownerID) else {
                throw ContextError.danglingReference(model: target.name, field: StoreFormat.current.keyColumn, id: traversal.ownerID)
            }
            target = try self.model(rel.target, source: source)
            d = ObjectFetch(model: target.name)
            if rel.isToMany {
                // Not the inverse column alone, even sorted: a member this context moved is not there yet.
                try context.restrictToMembers(&d, of: owner, rel.name)
            } else {
                d.restrictedTo = context.ids(in: try owner[rel.name])
            }
        }
        if let predicate = s.predicate {
            d.predicate = try TypeChecker(manifest: manifest, model: target, source: source).checkCondition(predicate)
        }
        try checkSortKeys(s, of: target, source: source)
        d.sortBy = s.sort.map { target.namesRowKey($0.field) ? .init(StoreFormat.current.keyColumn, ascending: $0.ascending) : $0 }
        d.fetchLimit = s.limit
        d.fetchOffset = s.offset
        return (target, d)
    }

    /// What a statement would run, without running it (`.explain`): for a read, update or delete the fetch
    /// that selects its rows; an insert reads nothing.
    package func explain(_ source: String) throws -> FetchExplanation? {
        switch try QueryParser.parse(source) {
        case .fetch(let s), .count(let s), .update(let s, _), .delete(let s):
            return try context.explain(try descriptor(s, source: source).1)
        case .get, .insert:
            return nil
        }
    }

    /// Sort keys name the id, a field or a to-one relationship of the model fetched; anything else is an
    /// error pointing at the key.
    private func checkSortKeys(_ s: QueryStatement.Selection, of model: ModelSchema, source: String) throws(ExpressionError) {
        for (key, column) in zip(s.sort, s.sortColumns) where !model.namesRowKey(key.field) && model.field(named: key.field) == nil {
            if let rel = model.relationship(named: key.field) {
                guard rel.isToMany else { continue }
                throw ExpressionError("cannot sort by '\(key.field)': it is a to-many relationship (sort by one of \(model.name)'s fields)",
                                      column: column, source: source)
            }
            throw ExpressionError("no field '\(key.field)' in \(model.name)" + Suggestion.hint(for: key.field, in: [StoreFormat.current.keyColumn] + model.columnNames, quote: "'"),
                                  column: column, source: source)
        }
    }

    /// Insert and update name fields and relationships; anything else is an error pointing at the name.
    private func requireColumn(_ field: String, of model: ModelSchema, column: Int, source: String) throws(ExpressionError) {
        guard model.field(named: field) == nil && model.relationship(named: field) == nil else { return }
        throw ExpressionError("no field '\(field)' in \(model.name)" + Suggestion.hint(for: field, in: model.columnNames, quote: "'"),
                              column: column, source: source)
    }

    /// The value assigned to a field or relationship in insert and update, type-checked against it as Swift
    /// would check the assignment: `.case` takes the field's enum, an integer literal may become a Double.
    private func assignment(_ field: String, _ expression: ParsedExpression, column: Int, checker: TypeChecker) throws -> TypedExpression {
        let model = checker.model
        try requireColumn(field, of: model, column: column, source: checker.source)
        if model.relationship(named: field) != nil {
            guard case .array(let items, _) = expression else { return try checker.check(expression) }
            return .literal(.array(try items.map { item in
                guard case .literal(let value, _) = try checker.check(item) else {
                    throw ExpressionError("a relationship takes ids: [#id(\"…\"), …]", column: item.column, source: checker.source)
                }
                return value
            }), .array(.id))
        }
        let fieldType = ValueType.of(model.field(named: field)!)
        if case .enumCase(let name, let c) = expression { return try checker.enumCase(name, column: c, type: fieldType.unwrapped) }
        let typed = try checker.check(expression, context: fieldType)
        let accepted: Bool
        switch (fieldType.unwrapped, typed.type.unwrapped) {
        case (_, .null): accepted = fieldType.isOptional
        case (let a, let b) where a == b: accepted = true
        case (.double, .int), (.date, .double), (.json, .string), (.uuid, .string): accepted = true
        case (.enumeration(let values), .string), (.enumeration(let values), .int):
            // A literal must be one of the values; any other expression is checked when it is stored.
            if case .literal(.string(let s), _) = typed, !values.contains(.string(s)) {
                throw checker.notInEnum(JSONWriter.string(.string(s)), s, values, expression.column)
            }
            if case .literal(.int(let i), _) = typed, !values.contains(.int(i)) { throw checker.notInEnum("\(i)", nil, values, expression.column) }
            accepted = true
        default: accepted = false
        }
        guard accepted else {
            throw ExpressionError("\(model.name).\(field) takes \(fieldType), not \(typed.type)", column: expression.column, source: checker.source)
        }
        return typed
    }
}
