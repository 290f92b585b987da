import Vein

/// `Post.upsert(post, in: context)` (docs/app-guide.md): one row per identity, the identity being a `@Unique` field
/// or a `#Unique<T>([\.a, \.b])` combination of fields.
///
/// - The instance's unique fields and combinations are looked up among the model's rows, stored and
///   unsaved. No row has any of them: the instance is inserted (with what it points to) and returned.
/// - One row has them: that row's instance is returned, with the new instance's whole state in place of
///   the row's, as SwiftData's upsert does: every field takes the new instance's value, an optional field
///   it never assigned (`var note: String?` without an initializer, or one it never set) becomes nil;
///   a relationship it assigned takes its targets (targets in no context yet are inserted, as `insert`
///   does). A relationship it never assigned stays as the store has it, unlike SwiftData, which empties
///   it: a fresh instance knows nothing of the row's members, and emptying a cascading list would leave
///   its members behind when the row is later deleted. The new instance stays out of every
///   context. All of it is checked before anything changes: a refused value (a `Double.nan`, a target in
///   another context) throws and leaves the row, and the targets, as they were.
/// - Its unique fields name two different rows: `ModelConvenienceError.matchesTwoRows`, nothing changed.
/// - The model has no `@Unique` field nor `#Unique` combination: `ModelConvenienceError.noUniqueField`.
/// - A nil unique value identifies nothing (SQLite's UNIQUE lets any number of rows hold NULL), nor
///   does a combination with a nil in it.
/// - A stored row still holds the value and this context deleted it without saving:
///   `ModelConvenienceError.valueHeldByUnsavedDelete` (a save writes new rows before it deletes, so the
///   store would refuse that save); save first, then upsert. A value an unsaved change moved away from a
///   row (A-1 renamed A-2) is free: a save writes changed rows before new ones.
/// - An instance already in this context is its row: returned as it is; deleted in this context:
///   `ModelConvenienceError.deleted`.
///
/// The read that decides is this context's: another context may insert the same value meanwhile. The
/// save then finds that row inside its transaction and updates it instead (as `insert`'s does), never
/// two rows.
extension PersistentModel {
    @discardableResult
    public static func upsert(_ model: Self, in context: ModelContext) throws -> Self {
        try context.checkSchema()
        let engine = context.engine
        if let object = model._$backing.object {
            guard let owner = try? object.context else { throw ModelConvenienceError.contextGone(model: modelName, id: object.id) }
            guard owner === engine else { throw ModelConvenienceError.inAnotherContext(model: modelName, id: object.id) }
            guard !object.isDeleted else { throw ModelConvenienceError.deleted(model: modelName, id: object.id) }
            return model
        }
        let uniqueKeys = _$schema.uniqueKeys
        guard !uniqueKeys.isEmpty else { throw ModelConvenienceError.noUniqueField(model: modelName) }
        // The engine's lock first, then the instance lock (Insertion's order): the lookup and the write
        // are one step for this context.
        return try engine.lock.withLock { try ModelBacking.instanceLock.withLock {
            if let merged = try merge(model, into: engine, uniqueKeys: uniqueKeys, includingPending: true) { return merged.kept }
            try requireNoUnsavedDeleteHolds(model, in: engine, uniqueKeys: uniqueKeys)
            try Insertion.insert(model, into: engine)
            return model
        } }
    }

    /// Throws `valueHeldByUnsavedDelete` when a stored row this context deleted without saving still
    /// holds one of `model`'s unique values: a save writes new rows before it deletes, so the store would
    /// refuse every save of the new row until the delete is saved.
    static func requireNoUnsavedDeleteHolds(_ model: Self, in engine: ObjectContext, uniqueKeys: [[FieldSchema]]) throws {
        for key in uniqueKeys {
            guard let values = try values(of: key, in: model),
                  let id = try engine.storedRowsDeletedWithoutSaving(modelName, where: condition(key, values)).first else { continue }
            throw ModelConvenienceError.valueHeldByUnsavedDelete(model: modelName, field: name(of: key), id: id)
        }
    }

    /// `model`'s values of a unique key's fields; nil when one of them is nil or was never given (a nil
    /// identifies no row: SQL's NULLs are all distinct).
    private static func values(of key: [FieldSchema], in model: Self) throws -> [Value]? {
        var values: [Value] = []
        for field in key {
            guard let value = try model._$backing.storedValue(field.name), value != .null else { return nil }
            values.append(value)
        }
        return values
    }

    /// Each of the key's fields equal to its value, as one condition.
    private static func condition(_ key: [FieldSchema], _ values: [Value]) -> TypedExpression {
        let conditions = zip(key, values).map { TypedExpression.fieldEquals($0, $1) }
        return conditions.dropFirst().reduce(conditions[0]) { .and($0, $1) }
    }

    /// "sku", "firstName and lastName".
    private static func name(of key: [FieldSchema]) -> String { key.map(\.name).joined(separator: " and ") }

    /// The row of this context whose unique values `model` (in no context) holds, given the new
    /// instance's state: every field (one never assigned is nil, when optional) and the relationships it
    /// assigned. Nil, and nothing changed, when no row holds them. Returns the row's object and its
    /// instance (`kept`; instances not in a context that point at `model` point at it instead).
    /// `includingPending`: rows as this context has them, unsaved changes included; otherwise the
    /// store's rows only, as this context has not changed them (a lookup that costs the same however
    /// many inserts are pending). Caller holds the engine's lock, then the instance lock.
    static func merge(_ model: Self, into engine: ObjectContext, uniqueKeys: [[FieldSchema]],
                      includingPending: Bool) throws -> (object: ModelObject, kept: Self)? {
        model._$pendLetValues()
        var match: (field: String, object: ModelObject)?
        for key in uniqueKeys {
            guard let values = try values(of: key, in: model) else { continue }
            let found: ModelObject?
            if includingPending {
                found = try engine.fetch(ObjectFetch(model: modelName, predicate: condition(key, values), fetchLimit: 1)).first
            } else {
                found = try engine.storedObject(modelName, unique: key.map(\.name), equal: values)
            }
            guard let object = found else { continue }
            if let first = match, first.object.id != object.id {
                throw ModelConvenienceError.matchesTwoRows(model: modelName, field: first.field, id: first.object.id,
                                                           otherField: name(of: key), otherID: object.id)
            }
            match = match ?? (name(of: key), object)
        }
        guard let object = match?.object else { return nil }
        let given = model._$backing.takePending()
        defer { model._$backing.restorePending(given.values, given.links) }
        var fields: [(key: String, value: Value)] = []
        var links: [(name: String, isToMany: Bool, targets: [any PersistentModel])] = []
        for property in _$schema.properties {
            switch property {
            case .field(let field, _):
                if let value = given.values[field.name] ?? (field.isOptional ? .null : nil) { fields.append((field.name, value)) }
            case .relationship(let relationship):
                if let targets = given.links[relationship.name] { links.append((relationship.name, relationship.isToMany, targets)) }
            }
        }
        // Everything checked before the first change: the fields, and targets that are another
        // context's (or deleted) rather than this context's or in none.
        try engine.check(object, fields)
        for link in links {
            for target in link.targets {
                guard let linked = target._$backing.object else { continue }
                guard (try? linked.context) === engine, !linked.isDeleted else {
                    throw ModelConvenienceError.targetOutsideContext(model: modelName, relationship: link.name,
                                                                     target: type(of: target).modelName, id: linked.id)
                }
            }
        }
        let kept = instance(object)
        let redirected = redirect(links.flatMap(\.targets), from: model, to: kept)
        do {
            for link in links {
                for target in link.targets where target._$backing.object == nil { try Insertion.insert(target, into: engine) }
            }
            let relationships = links.map { link -> (key: String, value: Value) in
                (link.name, Insertion.linkValue(link.targets.map { $0._$backing.object!.id }, toMany: link.isToMany))
            }
            try engine.set(object, all: fields + relationships)
        } catch {
            for (target, pending) in redirected { target._$backing.restorePending(pending.values, pending.links) }
            throw error
        }
        return (object, kept)
    }

    /// Instances not in a context yet that `targets` reach may point back at the new instance
    /// (`review.product = newer`): they point at the kept row's instance instead, or inserting them would
    /// insert the new instance too, a second row for its identity.
    /// Returns what each target held before, to put back if the upsert fails.
    private static func redirect(_ targets: [any PersistentModel], from model: Self, to kept: Self)
        -> [(any PersistentModel, (values: [String: Value], links: [String: [any PersistentModel]]))] {
        var seen = Set<ObjectIdentifier>([ObjectIdentifier(model)])
        var stack = targets
        var before: [(any PersistentModel, (values: [String: Value], links: [String: [any PersistentModel]]))] = []
        while let target = stack.popLast() {
            guard target._$backing.object == nil, seen.insert(ObjectIdentifier(target)).inserted else { continue }
            let pending = target._$backing.takePending()
            before.append((target, pending))
            let links = pending.links.mapValues { $0.map { $0 === model ? kept : $0 } }
            target._$backing.restorePending(pending.values, links)
            for linked in links.values { stack.append(contentsOf: linked) }
        }
        return before
    }
}
