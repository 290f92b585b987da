import Vein

/// `Post.upsert(post, in: context)` (SPEC §10): one row per identity, the identity being a `@Unique` field.
///
/// - The instance's unique fields are looked up among the model's rows, stored and unsaved. No row has
///   any of its values: the instance is inserted (with what it points to) and returned.
/// - One row has them: that row's instance is returned, with every field the new instance was given a
///   value (in its initializer or later) set to that value; a field it never had keeps the row's. Each
///   relationship the new instance was given replaces the row's (targets in no context yet are inserted,
///   as `insert` does). The new instance stays out of every context.
/// - Its unique fields name two different rows: `ModelConvenienceError.matchesTwoRows`, nothing changed.
/// - The model has no `@Unique` field: `ModelConvenienceError.noUniqueField`.
/// - A nil unique value identifies nothing (SQLite's UNIQUE lets any number of rows hold NULL).
/// - An instance already in this context is its row: returned as it is.
///
/// The read that decides is this context's: another context may insert the same value meanwhile. The
/// store's UNIQUE index then refuses the second save (`ContextError.constraintViolation`, nothing
/// written), never two rows; fetch and upsert again after it.
extension PersistentModel {
    @discardableResult
    public static func upsert(_ model: Self, in context: ModelContext) throws -> Self {
        try context.checkSchema()
        let engine = context.engine
        if let object = model._$backing.object {
            guard (try? object.context) === engine else { throw ModelConvenienceError.inAnotherContext(model: modelName, id: object.id) }
            return model
        }
        let uniqueFields = _$schema.properties.compactMap { property -> FieldSchema? in
            guard case .field(let field) = property, field.isUnique else { return nil }
            return field
        }
        guard !uniqueFields.isEmpty else { throw ModelConvenienceError.noUniqueField(model: modelName) }
        // The engine's lock first, then the instance lock (Insertion's order): the lookup and the write
        // are one step for this context.
        return try engine.lock.withLock {
            let given = model._$backing.takePending()
            defer { model._$backing.restorePending(given.values, given.links) }
            var match: (field: String, object: ModelObject)?
            for field in uniqueFields {
                guard let value = given.values[field.name], value != .null else { continue }
                let found = try engine.fetch(Vein.FetchDescriptor(model: modelName, predicate: .fieldEquals(field, value), fetchLimit: 1))
                guard let object = found.first else { continue }
                if let first = match, first.object.id != object.id {
                    throw ModelConvenienceError.matchesTwoRows(model: modelName, field: first.field, id: first.object.id,
                                                               otherField: field.name, otherID: object.id)
                }
                match = match ?? (field.name, object)
            }
            guard let object = match?.object else {
                model._$backing.restorePending(given.values, given.links)
                try Insertion.insert(model, into: engine)
                return model
            }
            for property in _$schema.properties {
                guard case .field(let field) = property, let value = given.values[field.name] else { continue }
                try object.set(field.name, value)
            }
            let kept = instance(object)
            redirect(given.links.values.flatMap { $0 }, from: model, to: kept)
            for (name, targets) in given.links {
                for target in targets where target._$backing.object == nil { try Insertion.insert(target, into: engine) }
                let ids = targets.map { Value.string($0._$backing.object!.id) }
                try object.set(name, object.model.relationship(named: name)?.isToMany == true ? .array(ids) : (ids.first ?? .null))
            }
            return kept
        }
    }

    /// Instances not in a context yet that `targets` reach may point back at the new instance
    /// (`review.product = newer`): they point at the kept row's instance instead, or inserting them would
    /// insert the new instance too, a second row for its identity.
    private static func redirect(_ targets: [any PersistentModel], from model: Self, to kept: Self) {
        var seen = Set<ObjectIdentifier>([ObjectIdentifier(model)])
        var stack = targets
        while let target = stack.popLast() {
            guard target._$backing.object == nil, seen.insert(ObjectIdentifier(target)).inserted else { continue }
            let pending = target._$backing.takePending()
            let links = pending.links.mapValues { $0.map { $0 === model ? kept : $0 } }
            target._$backing.restorePending(pending.values, links)
            for linked in links.values { stack.append(contentsOf: linked) }
        }
    }
}
