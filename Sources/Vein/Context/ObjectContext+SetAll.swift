extension ObjectContext {
    /// Throws what `set` would throw for any of `values` on `object` (a deleted object, an unknown name,
    /// a field value of the wrong type or not storable, a relationship naming no undeleted object of its
    /// target), writing nothing.
    package func check(_ object: ModelObject, _ values: [(key: String, value: Value)]) throws {
        try lock.withLock {
            guard object.state != .deleted else { throw ContextError.objectDeleted(model: object.modelName, id: object.id) }
            let layout = object.layout
            for (key, value) in values {
                guard let i = layout.index[key] else {
                    throw ContextError.unknownField(model: object.modelName, field: key, suggestion: Suggestion.closest(to: key, in: layout.columns))
                }
                if let rel = layout.relationships[i] {
                    _ = try resolveTargets(rel, value, model: object.modelName, key: key)
                } else {
                    _ = try checked(value, layout: layout, column: i)
                }
            }
        }
    }

    /// Sets several fields and relationships of `object` as one change, all or nothing (`setAll`): a
    /// refused value, or a link that fails after the check, leaves the object and what it links to as
    /// they were, not half-changed.
    package func set(_ object: ModelObject, all values: [(key: String, value: Value)]) throws {
        try setAll(values.map { (object, $0.key, $0.value) })
    }

    /// The ids of stored rows of `model` that `predicate` selects in the store as saved and that this
    /// context has deleted without saving: rows a save deletes only after it wrote the new ones (a UNIQUE
    /// value that is leaving is not free for a new row of the same save).
    package func storedRowsDeletedWithoutSaving(_ model: String, where predicate: TypedExpression) throws -> [String] {
        try lock.withLock {
            guard pending.deleted.contains(model: model) else { return [] }
            let layout = try layout(model)
            guard let compiled = SQLCompiler(table: layout.table, model: layout.model, manifest: manifest).condition(predicate) else { return [] }
            let ids = try database.rows("SELECT \(StoreFormat.key) FROM \(layout.table) WHERE \(compiled.sql)", compiled.arguments).compactMap { $0[0].string }
            return ids.filter { pending.deleted[$0] != nil }
        }
    }
}
