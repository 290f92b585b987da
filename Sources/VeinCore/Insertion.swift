import Vein

/// Inserting a model inserts what it points to (docs/app-guide.md): the instances reachable through pending
/// relationships that are in no context yet are inserted together, their fields first, then the links
/// (through the engine, which keeps inverses in step).
///
/// All or nothing in the context: when a row fails, the rows made so far are discarded; the links are
/// made by the engine all or nothing too (`link(_:insertedTogether:)`: a link changes the inverse side of
/// objects already in the context, which a failed link puts back as they were). So nothing of the batch
/// stays pending, nothing outside it names one of its objects, and every instance keeps its pending
/// values. The instances are attached only once everything succeeded.
///
/// Each inserted object upserts at save, as SwiftData's inserts do: a stored row that holds one of its
/// unique values by then is updated instead, and the object (and its instance) becomes that row's.
enum Insertion {
    /// The value a relationship is set to for `targets` (each in a context): a list of ids for a to-many,
    /// one id or nil for a to-one.
    static func linkValue(_ targetIDs: [String], toMany: Bool) -> Value {
        let ids = targetIDs.map(Value.string)
        return toMany ? .array(ids) : (ids.first ?? .null)
    }

    static func insert(_ root: any PersistentModel, into context: ObjectContext) throws {
        typealias Pending = (model: any PersistentModel, values: [PendingValue], links: [String: [any PersistentModel]])
        // The engine's lock first, then the instance lock (the order everywhere both are held).
        try context.lock.withLock { try ModelBacking.instanceLock.withLock {
            guard root._$backing.object == nil else { return }
            root._$pendLetValues()
            let rootPending = root._$backing.pendingValues
            if rootPending.links.isEmpty {
                // One instance and no link (the common case): no batch to collect, nothing to check.
                let object = try context.insert(type(of: root).modelName, pendingValues: rootPending.values,
                                                id: root._$backing.keyForInsert, upsertsOnSave: true)
                root._$backing.attach(object)
                root._$backing.keep(context)
                object.typedModel = root
                return
            }
            var batch: [Pending] = []
            var seen = Set<ObjectIdentifier>()
            var stack: [any PersistentModel] = [root]
            while let model = stack.popLast() {
                guard model._$backing.object == nil, seen.insert(ObjectIdentifier(model)).inserted else { continue }
                model._$pendLetValues()
                let taken = model._$backing.pendingValues
                batch.append((model, taken.values, taken.links))
                for targets in taken.links.values { stack.append(contentsOf: targets) }
            }
            var made: [ObjectIdentifier: ModelObject] = [:]
            var objects: [ModelObject] = []
            do {
                for pending in batch {
                    let object = try context.insert(type(of: pending.model).modelName, pendingValues: pending.values,
                                                    id: pending.model._$backing.keyForInsert, upsertsOnSave: true)
                    objects.append(object)
                    made[ObjectIdentifier(pending.model)] = object
                }
                func valueLinking(_ object: ModelObject, _ name: String, _ targets: [any PersistentModel]) -> Value {
                    linkValue(targets.map { (made[ObjectIdentifier($0)] ?? $0._$backing.object!).id },
                              toMany: object.model.relationship(named: name)?.isToMany ?? false)
                }
                // In the order the app assigned them: a link sets its inverse too, so a later assignment
                // (`person.pets = [pet]`) must not be undone by an earlier one (`pet.owner = nil` in an init).
                var links: [(time: UInt64, object: ModelObject, key: String, value: Value)] = []
                for (pending, object) in zip(batch, objects) {
                    for (name, targets) in pending.links {
                        links.append((pending.model._$backing.pendingLinkTime(name), object, name, valueLinking(object, name, targets)))
                    }
                }
                links.sort { $0.time < $1.time }
                try context.link(links.map { ($0.object, $0.key, $0.value) }, insertedTogether: objects)
            } catch {
                context.discardInserted(objects)
                throw error
            }
            for (pending, object) in zip(batch, objects) {
                pending.model._$backing.attach(object)
                pending.model._$backing.keep(context)
                object.typedModel = pending.model
            }
        } }
    }
}
