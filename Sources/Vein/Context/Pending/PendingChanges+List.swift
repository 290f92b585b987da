/// The pending changes as `ObjectContext.Change`s (`changes()`, and the recordings' entries), worked out
/// from the sets of pending objects alone.
extension PendingChanges {
    /// What `save` would write, in order: inserts in the order made, then updates and deletes by id.
    var list: [ObjectContext.Change] {
        inserted.map(insertChange) + updated.values.sorted { $0.id < $1.id }.map(updateChange)
            + (deleted.values.map { ($0.id, $0.modelName) } + deletedByRule.map { ($0.key, $0.value) })
            .sorted { $0.0 < $1.0 }.map { ObjectContext.Change(kind: .delete, model: $0.1, id: $0.0, fields: []) }
    }

    /// The object's pending change, if it has one.
    func pendingChange(of object: ModelObject) -> ObjectContext.Change? {
        if object.state == .inserted, inserted.contains(object) { return insertChange(object) }
        if updated.holds(object) { return updateChange(object) }
        if deleted.holds(object) { return ObjectContext.Change(kind: .delete, model: object.modelName, id: object.id, fields: []) }
        return nil
    }

    /// The pending delete of a row a delete rule takes that this context does not hold.
    func ruleDeletion(_ id: String) -> ObjectContext.Change? {
        guard deleted[id] == nil, let model = deletedByRule[id] else { return nil }
        return ObjectContext.Change(kind: .delete, model: model, id: id, fields: [])
    }

    private func insertChange(_ object: ModelObject) -> ObjectContext.Change {
        ObjectContext.Change(kind: .insert, model: object.modelName, id: object.id, fields: [])
    }

    private func updateChange(_ object: ModelObject) -> ObjectContext.Change {
        ObjectContext.Change(kind: .update, model: object.modelName, id: object.id,
                             fields: object.changed.union(object.linkChanges.keys).sorted().map { object.layout.columns[$0] })
    }
}
