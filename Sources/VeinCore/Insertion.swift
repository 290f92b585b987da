import Vein

/// Inserting a model inserts what it points to (SPEC §10): the instances reachable through pending
/// relationships that are in no context yet are inserted together, their fields first, then the links
/// (through the engine, which keeps inverses in step).
enum Insertion {
    static func insert(_ root: any PersistentModel, into context: Vein.ModelContext) throws {
        typealias Pending = (model: any PersistentModel, values: [String: Value], links: [String: [any PersistentModel]])
        var batch: [Pending] = []
        var seen = Set<ObjectIdentifier>()
        var stack: [any PersistentModel] = [root]
        // The engine's lock first, then the instance lock (the order everywhere both are held).
        try context.lock.withLock { try ModelBacking.instanceLock.withLock {
            while let model = stack.popLast() {
                guard model._$backing.object == nil, seen.insert(ObjectIdentifier(model)).inserted else { continue }
                let taken = model._$backing.takePending()
                batch.append((model, taken.values, taken.links))
                for targets in taken.links.values { stack.append(contentsOf: targets) }
            }
            do {
                for pending in batch {
                    let object = try context.insert(type(of: pending.model).modelName, pending.values)
                    pending.model._$backing.attach(object)
                    object.typedModel = pending.model
                }
                for pending in batch {
                    for (name, targets) in pending.links {
                        let ids = targets.map { Value.string($0._$backing.object!.id) }
                        let isToMany = pending.model._$backing.object!.model.relationship(named: name)?.isToMany ?? false
                        try pending.model._$backing.object!.set(name, isToMany ? .array(ids) : (ids.first ?? .null))
                    }
                }
            } catch {
                // The instances not inserted keep their values; those inserted stay pending in the context
                // (a rollback discards them).
                for pending in batch { pending.model._$backing.restorePending(pending.values, pending.links) }
                throw error
            }
        } }
    }
}
