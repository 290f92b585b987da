extension ModelContext {
    /// Throws what `object.set(key, value)` would throw for a relationship value (an unknown
    /// relationship, a value of the wrong shape, an id naming no object of the target model in this
    /// context), without changing anything: a caller making several links checks them all first, so
    /// that none is made unless all can be.
    package func checkSet(_ object: ModelObject, _ key: String, _ value: Value) throws {
        try lock.withLock {
            guard object.state != .deleted else { throw ContextError.objectDeleted(model: object.modelName, id: object.id) }
            guard let i = object.layout.index[key] else {
                throw ContextError.unknownField(model: object.modelName, field: key,
                                                suggestion: Suggestion.closest(to: key, in: object.layout.columns))
            }
            if let rel = object.layout.relationships[i] {
                _ = try resolveTargets(rel, value, model: object.modelName, key: key)
            } else {
                _ = try checked(value, layout: object.layout, column: i)
            }
        }
    }

    /// Forgets objects inserted since the last save, as `rollback` forgets all of them: an insert of
    /// several objects that failed part-way leaves none of them pending. The objects must be linked to
    /// nothing outside `objects` (the caller checked every link before making any).
    package func discardInserted(_ objects: [ModelObject]) {
        lock.withLock {
            guard !objects.isEmpty else { return }
            let discarded = Set(objects.map(ObjectIdentifier.init))
            inserted.removeAll { discarded.contains(ObjectIdentifier($0)) }
            for object in objects where object.state == .inserted {
                object.state = .deleted
                identityMap.removeValue(forKey: ObjectKey(object.id))
            }
        }
    }
}
