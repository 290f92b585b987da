extension ObjectContext {
    /// Objects matching the descriptor. The condition runs in SQL when SQL gives exactly Swift's answer;
    /// otherwise SQL narrows and the rest is evaluated in memory. Pending changes are included unless the
    /// descriptor says not to.
    public func fetch(_ descriptor: ObjectFetch) throws -> [ModelObject] {
        try interruptible { try lock.withLock {
            let layout = try layout(descriptor.model)
            try noticeOtherWriters()
            var projection = try descriptor.columnsToFetch.map { names in
                // A to-one to prefetch is read too: its targets are found by the ids it holds.
                try layout.projection(reading: names + descriptor.relationshipsToPrefetch)
            }
            var plan = try fetchPlan(descriptor, layout: layout, columns: projection?.selectList)
            if projection != nil, !plan.allInSQL {
                // Memory filters or sorts the rows: it would read the columns left out one row at a time.
                projection = nil
                plan = try fetchPlan(descriptor, layout: layout)
            }
            let (sql, arguments, allInSQL, exactInSQL, pending, restrictedInMemory) =
                (plan.sql, plan.arguments, plan.allInSQL, plan.exactInSQL, plan.pending, plan.restrictedInMemory)

            var objects: [ModelObject] = []
            let statement = try database.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(arguments)
            try registeringRetained {
                if !identityMap.hasHeld(descriptor.model) {
                    return objects = try materializeUnheld(statement, layout: layout, projection: projection)
                }
                while try statement.step() {
                    let object = try materialize(statement, layout: layout, projection: projection)
                    if object.state != .deleted { objects.append(object) }
                }
            }
            if allInSQL { return try prefetched(descriptor.relationshipsToPrefetch, of: objects, layout: layout) }

            if pending || restrictedInMemory || descriptor.membersLinkedSinceSave != nil {
                let known = Set(objects.map(\.id))
                if pending { objects += pendingInserts(descriptor, pinned: plan.pinnedIDs).filter { !known.contains($0.id) } }
                if let ids = descriptor.restrictedTo {
                    let allowed = Set(ids)
                    objects = objects.filter { allowed.contains($0.id) }
                }
                if let owner = descriptor.owner, let i = layout.index[owner.column] {
                    objects = objects.filter { $0[column: i] == .string(owner.id) }
                }
            }
            if let predicate = descriptor.predicate, !exactInSQL || pending {
                objects = try objects.filter { try evaluator(for: $0).test(predicate) }
            }
            if let ids = descriptor.restrictedTo, descriptor.sortBy.isEmpty {
                let position = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
                objects.sort { position[$0.id, default: .max] < position[$1.id, default: .max] }
            } else if pending {
                objects = try sortInMemory(objects, descriptor.sortBy, layout: layout)
            }
            let start = min(descriptor.fetchOffset, objects.count)
            let end = descriptor.fetchLimit.map { min(objects.count, start + $0) } ?? objects.count
            return try prefetched(descriptor.relationshipsToPrefetch, of: Array(objects[start..<end]), layout: layout)
        } }
    }

    /// The SQL a fetch runs and what it leaves to memory, decided once for `fetch` and `explain`.
    struct FetchPlan {
        var sql: String
        var arguments: [DatabaseValue]
        /// Condition, order and window all in SQL: the rows SQLite returns are the answer.
        var allInSQL: Bool
        /// SQL gives exactly Swift's answer for the condition (or there is none).
        var exactInSQL: Bool
        /// Unsaved changes of this model are merged in memory.
        var pending: Bool
        /// More ids than SQLite takes as arguments: the restriction is applied in memory.
        var restrictedInMemory: Bool
        /// With `pending`: the ids the condition can select at most (`TypedExpression.pinnedIDs`), the
        /// only rows and pending objects looked at.
        var pinnedIDs: Set<String>?
    }

    /// The model's objects inserted and not saved that the fetch considers: those with the ids the
    /// condition pins, looked up; otherwise all of the model's.
    private func pendingInserts(_ descriptor: ObjectFetch, pinned: Set<String>?) -> [ModelObject] {
        let ofModel = pending.inserted.of(descriptor.model)
        guard let pinned else { return Array(ofModel) }
        return pinned.sorted().compactMap { id in
            identityMap[ObjectKey(id)].flatMap { ofModel.contains($0) ? $0 : nil }
        }
    }

    /// `columns`: what the plan's SQL selects, by default the layout's columns (an object's row).
    func fetchPlan(_ descriptor: ObjectFetch, layout: ModelLayout, columns: String? = nil) throws -> FetchPlan {
        let compiled = descriptor.predicate.flatMap { SQLCompiler(table: layout.table, model: layout.model, manifest: manifest).condition($0) }
        let exactInSQL = descriptor.predicate == nil || (compiled?.isExact ?? false)
        let pending = descriptor.includePendingChanges && hasPendingChanges(for: descriptor.model, readBy: descriptor.predicate)
        let orderKeptFromList = descriptor.restrictedTo != nil && descriptor.sortBy.isEmpty
        // Everything in SQL: condition, order, window. Not the window when the condition can fail: SQLite
        // would stop reading at the limit, and Swift's filter meets an error on any row.
        let windowed = descriptor.fetchLimit != nil || descriptor.fetchOffset > 0
        let restrictedInMemory = descriptor.members == nil && (descriptor.restrictedTo?.count ?? 0) > SQLCompiler.maxArguments
        let allInSQL = exactInSQL && !pending && !orderKeptFromList && !restrictedInMemory && descriptor.membersLinkedSinceSave == nil
            && !(windowed && compiled?.canFail == true)

        var sql = "SELECT \(columns ?? layout.selectList) FROM \(layout.table)"
        var conditions: [String] = [], arguments: [DatabaseValue] = []
        // Through the primary key: the members' ids from the relationship's index, or a bound list.
        if let members = descriptor.members {
            let stored = "\(layout.table).\(StoreFormat.key) IN (\(members.storage.membersSQL(owner: "?")))"
            arguments.append(.text(members.owner))
            if let linked = descriptor.membersLinkedSinceSave, !linked.isEmpty {
                conditions.append("(\(stored) OR \(layout.table).\(StoreFormat.key) IN (\(SQL.placeholders(linked.count))))")
                arguments += linked.map { .text($0) }
            } else {
                conditions.append(stored)
            }
        } else if let ids = descriptor.restrictedTo, ids.count <= SQLCompiler.maxArguments {
            conditions.append("\(layout.table).\(StoreFormat.key) IN (\(ids.map { _ in "?" }.joined(separator: ", ")))")
            arguments += ids.map { .text($0) }
        }
        if let owner = descriptor.owner {
            conditions.append("\(layout.table).\(SQL.quoteIdentifier(owner.column)) = ?")
            arguments.append(.text(owner.id))
        }
        if let raw = descriptor.sqlCondition {
            // Checked to stay inside its parentheses (and on its own lines: a `--` comment in it must not
            // swallow the closing one), then prepared alone: it only reads, and its `?` match its
            // arguments one to one, as the fetch's own arguments are bound after them.
            conditions.append(try checkedCondition(raw, layout: layout))
            arguments += raw.arguments
        }
        let pinned = pending ? descriptor.predicate?.pinnedIDs.flatMap { $0.count <= SQLCompiler.maxArguments ? $0 : nil } : nil
        if let pinned {
            // Rows changed in memory are met by id too, so the pinned ids are all SQL needs to narrow.
            conditions.append("\(layout.table).\(StoreFormat.key) IN (\(pinned.map { _ in "?" }.joined(separator: ", ")))")
            arguments += pinned.sorted().map { .text($0) }
        } else if var compiled, let narrowing = pending ? narrowingWithPendingChanges(compiled, descriptor: descriptor, layout: layout) : compiled {
            compiled = narrowing
            // A condition that can fail is evaluated only on rows in scope (a relationship's), as Swift
            // evaluates it only on those objects: SQLite may test the terms of a WHERE in any order.
            let scoped = compiled.canFail && !conditions.isEmpty
            conditions.append(scoped ? "(CASE WHEN \(conditions.joined(separator: " AND ")) THEN \(compiled.sql) ELSE 0 END)" : compiled.sql)
            arguments += (scoped ? arguments : []) + compiled.arguments
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY " + (try descriptor.sortBy.map { key in
            guard key.field == StoreFormat.current.keyColumn || layout.index[key.field] != nil else {
                throw ContextError.unknownField(model: layout.model.name, field: key.field,
                                                suggestion: Suggestion.closest(to: key.field, in: layout.columns))
            }
            return "\(layout.table).\(SQL.quoteIdentifier(key.field)) \(key.ascending ? "ASC" : "DESC")"
        } + ["\(layout.table).\(StoreFormat.key) ASC"]).joined(separator: ", ")
        if allInSQL, descriptor.fetchLimit != nil || descriptor.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(descriptor.fetchLimit ?? -1)), .integer(Int64(descriptor.fetchOffset))]
        }
        return FetchPlan(sql: sql, arguments: arguments, allInSQL: allInSQL, exactInSQL: exactInSQL, pending: pending,
                         restrictedInMemory: restrictedInMemory, pinnedIDs: pinned)
    }

    /// A raw SQL condition (`ObjectFetch.sqlCondition`) as a term of a WHERE, checked before it runs:
    /// it stays inside its parentheses (and on its own lines: a `--` comment in it must not swallow the
    /// closing one), only reads, and its `?` match its arguments one to one (the fetch binds its own
    /// arguments after them).
    func checkedCondition(_ raw: (sql: String, arguments: [DatabaseValue]), layout: ModelLayout) throws -> String {
        try SQLConditionError.requireEnclosable(raw.sql)
        let condition = "(\n\(raw.sql)\n)"
        try database.requireReadsOnly("SELECT 1 FROM \(layout.table) WHERE \(condition)", shown: raw.sql, arguments: raw.arguments.count)
        return condition
    }

    /// What a fetch would do, for a person (`.explain` in the REPL): the SQL, SQLite's query plan for it,
    /// and what is evaluated in memory after it.
    public func explain(_ descriptor: ObjectFetch) throws -> FetchExplanation {
        try lock.withLock {
            let plan = try fetchPlan(descriptor, layout: try layout(descriptor.model))
            let rows = try database.makeStatement("EXPLAIN QUERY PLAN " + plan.sql)
            try rows.bind(plan.arguments)
            var steps: [String] = []
            while try rows.step() { steps.append(rows.string(rows.columnCount - 1)) }
            var inMemory: [String] = []
            if !plan.exactInSQL { inMemory.append("the condition (SQL narrows the rows; Swift's semantics decide)") }
            if plan.pending { inMemory.append("unsaved changes of \(descriptor.model), merged and sorted") }
            if plan.restrictedInMemory { inMemory.append("the relationship's ids (more than SQLite takes as arguments)") }
            if !plan.allInSQL, descriptor.fetchLimit != nil || descriptor.fetchOffset > 0 { inMemory.append("limit and offset") }
            if descriptor.restrictedTo != nil, descriptor.sortBy.isEmpty { inMemory.append("the relationship's own order") }
            return FetchExplanation(sql: plan.sql, arguments: plan.arguments, queryPlan: steps, inMemory: inMemory)
        }
    }

    public func fetchCount(_ descriptor: ObjectFetch) throws -> Int {
        try interruptible { try lock.withLock {
            let layout = try layout(descriptor.model)
            let compiled = descriptor.predicate.flatMap { SQLCompiler(table: layout.table, model: layout.model, manifest: manifest).condition($0) }
            // A raw condition reads the store only, but a fetch still leaves out the rows this context
            // deleted: counted in SQL only while the model has no unsaved change.
            let raw = descriptor.sqlCondition
            if (descriptor.predicate == nil || compiled?.isExact == true), descriptor.restrictedTo == nil, descriptor.owner == nil,
               !((descriptor.includePendingChanges || raw != nil) && hasPendingChanges(for: descriptor.model, readBy: descriptor.predicate)) {
                var conditions: [String] = [], arguments: [DatabaseValue] = []
                if let raw {
                    conditions.append(try checkedCondition(raw, layout: layout))
                    arguments += raw.arguments
                }
                if let compiled {
                    conditions.append(compiled.sql)
                    arguments += compiled.arguments
                }
                let sql = "SELECT count(*) FROM \(layout.table)" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                let total = Int(try database.scalar(sql, arguments)?.int64 ?? 0)
                let afterOffset = max(0, total - descriptor.fetchOffset)
                return descriptor.fetchLimit.map { min($0, afterOffset) } ?? afterOffset
            }
            return try fetch(descriptor).count
        } }
    }

    public func fetchIdentifiers(_ descriptor: ObjectFetch) throws -> [String] {
        let ids: [String]? = try interruptible { try lock.withLock {
            // Rows the store answers exactly, none of them changed in this context: their ids straight from
            // SQL, without making an object per row (which cost more than the fetch of the objects).
            guard !hasPendingChanges(for: descriptor.model) else { return nil }
            let layout = try layout(descriptor.model)
            let plan = try fetchPlan(descriptor, layout: layout, columns: "\(layout.table).\(StoreFormat.key)")
            guard plan.allInSQL else { return nil }
            let statement = try database.cachedStatement(plan.sql)
            defer { statement.reset() }
            try statement.bind(plan.arguments)
            var ids: [String] = []
            while try statement.step() { ids.append(statement.string(0)) }
            return ids
        } }
        return try ids ?? fetch(descriptor).map(\.id)
    }

    /// The condition as a filter on stored rows while the context has pending changes, whose rows the store
    /// does not show: the rows it selects, plus the ones changed in the context (they are then evaluated in
    /// memory as the context has them). Nil, so memory decides on every row, where that cannot be said in
    /// SQL: a condition reading other objects (changed members, hop targets), one that could trap on a
    /// stored row the context has changed, too many changed rows to bind.
    private func narrowingWithPendingChanges(_ compiled: SQLCompiler.Fragment, descriptor: ObjectFetch, layout: ModelLayout) -> SQLCompiler.Fragment? {
        guard descriptor.predicate?.readsOtherObjects != true, !compiled.canFail,
              pending.updated.count(of: descriptor.model) <= SQLCompiler.maxArguments else { return nil }
        let changed = pending.updated.ids(of: descriptor.model).sorted()
        guard !changed.isEmpty else { return SQLCompiler.Fragment(sql: compiled.sql, arguments: compiled.arguments, isExact: false) }
        return SQLCompiler.Fragment(sql: "(\(compiled.sql) OR \(layout.table).\(StoreFormat.key) IN (\(changed.map { _ in "?" }.joined(separator: ", "))))",
                                    arguments: compiled.arguments + changed.map { .text($0) }, isExact: false)
    }

    /// Pending changes the store does not show yet that could change which `model` rows the predicate
    /// selects: the model's own, or any when the predicate reads other objects (a hop, a to-many's members).
    func hasPendingChanges(for model: String, readBy predicate: TypedExpression?) -> Bool {
        if predicate?.readsOtherObjects == true { return pending.hasChanges }
        return hasPendingChanges(for: model)
    }

    func hasPendingChanges(for model: String) -> Bool {
        pending.touches(model)
    }

    /// Reads columns of an object for the evaluator, following one to-one hop, and the members of its
    /// to-manys (as this context sees them, pending changes included) for closures over them.
    func evaluator(for object: ModelObject) -> Evaluator {
        Evaluator(evaluationScope(for: object))
    }

    private func evaluationScope(for object: ModelObject) -> Evaluator.Scope {
        Evaluator.Scope(read: { [unowned self] path in
            var source = object
            if let hop = path.hop {
                guard case .string(let id) = try self.value(of: object, hop.name),
                      let target = try self.object(hop.target, id: id) else { return .null }
                source = target
            }
            return try self.value(of: source, path.column)
        }, members: { [unowned self] path in
            guard case .toMany(let target) = path.storedType else { return [] }
            return try self.ids(in: try self.value(of: object, path.column)).compactMap { id in
                try self.object(target, id: id).map { self.evaluationScope(for: $0) }
            }
        })
    }

    /// Swift's `SortDescriptor` order: nil before any value, strings by Swift's `<`; stable, so ties keep
    /// id order.
    func sortInMemory(_ objects: [ModelObject], _ keys: [ObjectFetch.SortKey], layout: ModelLayout) throws -> [ModelObject] {
        var rows = objects.sorted { $0.id < $1.id }
        guard !keys.isEmpty else { return rows }
        let values = try rows.map { o in try keys.map { try value(of: o, $0.field) } }
        let order = rows.indices.sorted { a, b in
            for (k, key) in keys.enumerated() {
                let x = values[a][k], y = values[b][k]
                if Evaluator.equal(x, y) { continue }
                let less = x == .null || (y != .null && (Evaluator.compare("<", x, y) || (x == .bool(false) && y == .bool(true))))
                return key.ascending ? less : !less
            }
            return a < b
        }
        rows = order.map { rows[$0] }
        return rows
    }
}
