/// Insert-as-upsert decided by the save (SwiftData's rule for a unique value): a pending insert that asked
/// for it (`ModelObject.upsertsOnSave`, VeinCore's inserts) whose unique value a stored row holds when the
/// save runs becomes the update of that row. Decided inside the save's write transaction, so the row found
/// is the row written: another context or process that saved the value between the insert and the save
/// is met here rather than refused by the store.
extension ObjectContext {
    /// The model's unique constraints, each the columns whose values together identify a row. The one
    /// place the save-time lookup learns them from.
    func uniqueConstraints(of layout: ModelLayout) -> [[Int]] {
        let single = layout.columns.indices.filter { layout.fieldSchemas[$0]?.isUnique == true }.map { [$0] }
        // A compound constraint with a to-one in it is the UNIQUE index's to enforce: a new instance's
        // target may have no row yet to compare (as for the insert-time lookup).
        let compound = layout.model.uniquenessConstraints.compactMap { names -> [Int]? in
            let columns = names.compactMap { layout.index[$0] }.filter { layout.fieldSchemas[$0] != nil }
            return columns.count == names.count ? columns : nil
        }
        return single + compound
    }

    /// Inside the save transaction, after the conflict checks and before anything is written: each pending
    /// insert that upserts and meets a stored row through one of its unique constraints takes that row's
    /// key and becomes its pending update (`rekey`). `undo` gathers what puts the context back as it was
    /// before the save, for a save that fails afterwards (or here).
    func upsertInsertsMeetingStoredRows(undo: inout SaveUpsertUndo) throws {
        let candidates = pending.inserted.filter { $0.upsertsOnSave && !uniqueConstraints(of: $0.layout).isEmpty }
        for object in candidates {
            guard let (rowID, columns) = try storedRow(holdingUniqueValuesOf: object) else { continue }
            let key = ObjectKey(rowID)
            if let (held, onlyInMap) = identityMap.entry(key, of: object.modelName) {
                // A value the held row gives up in this save (an unsaved change) is free for the insert.
                if held.state == .deleted {
                    throw ContextError.uniqueValueOfDeletedRow(model: object.modelName, field: object.layout.columns[columns[0]], id: rowID)
                }
                if columns.contains(where: { !held.unloaded.contains($0) && held[column: $0] != object[column: $0] && !hasNoUnsavedChange(held) }) {
                    continue
                }
                guard onlyInMap, hasNoUnsavedChange(held) else {
                    throw ContextError.uniqueValueHeld(model: object.modelName, field: object.layout.columns[columns[0]], id: rowID)
                }
                // Only the identity map holds it: nothing can tell it from the insert that takes its place.
                undo.mapEntries.append((key, held))
                identityMap.remove(key)
            }
            try rekey(object, to: rowID, undo: &undo)
            undo.rekeyed.append((object, columns[0]))
        }
    }

    /// Inside the save transaction, after `deleteRows`: no insert took the key of a row a delete rule
    /// then deleted (one the context does not hold, reached through the store), which would save a
    /// deleted object as the insert.
    func requireUpsertedRowsStand(_ undo: SaveUpsertUndo) throws {
        for (object, column) in undo.rekeyed {
            let statement = try database.cachedStatement("SELECT 1 FROM \(DeleteSet.table) WHERE \"model\" = ? AND \"id\" = ?")
            defer { statement.reset() }
            try statement.bind([.text(object.modelName), .text(object.id)])
            if try statement.step() {
                throw ContextError.uniqueValueOfDeletedRow(model: object.modelName, field: object.layout.columns[column], id: object.id)
            }
        }
    }

    /// The key of the stored row holding one of `object`'s unique values (and that constraint's columns);
    /// nil when none does, or when two constraints name two rows (the store refuses that insert).
    private func storedRow(holdingUniqueValuesOf object: ModelObject) throws -> (String, [Int])? {
        let layout = object.layout
        var found: (String, [Int])?
        for columns in uniqueConstraints(of: layout) where !columns.contains(where: { object[column: $0] == .null }) {
            let condition = columns.map { "\(layout.table).\(SQL.quoteIdentifier(layout.columns[$0])) = ?" }.joined(separator: " AND ")
            let statement = try database.cachedStatement("SELECT \(StoreFormat.key) FROM \(layout.table) WHERE \(condition) LIMIT 1")
            defer { statement.reset() }
            for (n, i) in columns.enumerated() { try layout.codecs[i]!.bind(object[column: i], to: statement, at: n + 1) }
            guard try statement.step() else { continue }
            let id = statement.string(0)
            if let (other, _) = found, other != id { return nil }
            found = found ?? (id, columns)
        }
        return found
    }

    /// Makes the pending insert `object` the pending update of the stored row `rowID`: every reference of
    /// the context's pending work to its key names the row's instead, it holds the row as stored now, and
    /// then takes what the insert gave it, as `set` would on the row: every field, the relationships set
    /// since the insert (their inverses and the members or targets they replace follow), the rest as
    /// stored. Everything it changes is kept in `undo` first.
    private func rekey(_ object: ModelObject, to rowID: String, undo: inout SaveUpsertUndo) throws {
        let layout = object.layout
        let oldID = object.id
        for other in pending.objects {
            rename(oldID, to: rowID, model: object.modelName, in: other, undo: &undo)
        }
        undo.saved.keep(object, in: self, keepingLinkChanges: true)
        let given = (values: object.values, links: object.linkChanges, setSinceInsert: object.setSinceInsert)

        let statement = try database.cachedStatement("SELECT \(layout.selectList) FROM \(layout.table) WHERE \(StoreFormat.key) = ?")
        defer { statement.reset() }
        try statement.bind([.text(rowID)])
        guard try statement.step() else { throw ContextError.conflict(model: object.modelName, id: rowID) }
        let (stored, unfetched) = try Self.read(statement, layout: layout, key: ObjectKey(rowID), projection: nil)
        statement.reset()

        undo.mapEntries.append((ObjectKey(oldID), object))
        identityMap.remove(ObjectKey(oldID))
        undo.mapEntries.append((ObjectKey(rowID), nil))
        object.rekey(rowID)
        identityMap.restore(object, ObjectKey(rowID))
        object.state = .persisted
        object.values = stored
        object.unloaded = unfetched
        object.changed = []
        object.linkChanges = [:]
        object.readValues = nil
        object.setSinceInsert = []
        readClock.stamp(object)
        pending.recordInsertBecameUpdate(object)

        for i in layout.columns.indices where layout.relationships[i] == nil {
            if object.unloaded.contains(i) || object[column: i] != given.values[i] { write(object, i, given.values[i]) }
            object.unloaded.remove(i)
        }
        var links: [(object: ModelObject, key: String, value: Value)] = []
        var added: [(Int, [String])] = []
        for (i, rel) in layout.relationships.enumerated() {
            guard let rel else { continue }
            if rel.isToMany, let change = given.links[i] {
                if change.replaced { links.append((object, layout.columns[i], given.values[i])) } else { added.append((i, change.added)) }
            } else if !rel.isToMany, given.setSinceInsert.contains(i) {
                links.append((object, layout.columns[i], given.values[i]))
            }
        }
        // The lists replaced are read first, so that the members they lose are kept in `undo` too.
        for link in links { if let i = layout.index[link.key], object.unloaded.contains(i) { try loadLazy(object, i) } }
        undo.saved = try stateReachedBy(links, outside: [ObjectIdentifier(object)], into: undo.saved, keepingLinkChanges: true)
        for link in links { try set(link.object, link.key, link.value) }
        // Members linked to the new object from their side (their inverse already names the row).
        for (i, ids) in added { for id in ids { addLink(object, i, id) } }
    }

    /// Makes `object`'s relationships to `model` name `newID` where they name `oldID`, keeping its state in `undo` first.
    private func rename(_ oldID: String, to newID: String, model: String, in object: ModelObject, undo: inout SaveUpsertUndo) {
        let old = Value.string(oldID), new = Value.string(newID)
        for (i, rel) in object.layout.relationships.enumerated() where rel?.target == model {
            let renamedLinks = object.linkChanges[i]?.renaming(oldID, to: newID)
            let value = object[column: i]
            let renamedValue: Value?
            switch value {
            case old: renamedValue = new
            case .array(let items) where items.contains(old):
                var seen = Set<String>()
                renamedValue = .array(items.map { $0 == old ? new : $0 }.filter { seen.insert($0.stringValue ?? "").inserted })
            default: renamedValue = nil
            }
            guard renamedLinks != nil || renamedValue != nil else { continue }
            undo.saved.keep(object, in: self, keepingLinkChanges: true)
            if let renamedLinks { object.linkChanges[i] = renamedLinks }
            if let renamedValue { object[column: i] = renamedValue }
        }
    }
}

/// What a save's insert-as-upsert changed in the context (`upsertInsertsMeetingStoredRows`), to put back
/// when the save fails after it: the context is then as it was before the save, each insert pending
/// under its own key.
struct SaveUpsertUndo {
    /// The pending work as it was before the save.
    let pending: PendingChanges.Checkpoint
    /// The objects changed, as they were.
    var saved = SavedObjects()
    /// The identity map's entries changed, each with what it held before (nil: nothing), in order.
    var mapEntries: [(ObjectKey, ModelObject?)] = []
    /// The inserts that took a stored row's key, each with the first column of the constraint that found it.
    var rekeyed: [(object: ModelObject, column: Int)] = []

    var isEmpty: Bool { saved.objects.isEmpty && mapEntries.isEmpty }

    func apply(to context: ObjectContext) {
        guard !isEmpty else { return }
        context.restore(saved)
        for (key, object) in mapEntries.reversed() { context.identityMap.restore(object, key) }
        context.pending.restore(pending)
    }
}
