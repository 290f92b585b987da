extension ObjectContext {
    /// Makes the relationships of objects inserted together (`batch`, just inserted: an insert of several
    /// objects), all or nothing. Every link is checked before the first is made; a link can still fail
    /// after that (it reads the store: the object a target leaves when its to-one inverse moves to the new
    /// owner, when that object is not loaded yet, may hold a damaged cell; an interrupt or an I/O error).
    /// Then the objects outside the batch that the links changed (their inverse sides) are put back as they
    /// were, pending changes included, and the batch is discarded: nothing outside it names a discarded
    /// object, and the context's other pending work stays as it was.
    package func link(_ links: [(object: ModelObject, key: String, value: Value)], insertedTogether batch: [ModelObject]) throws {
        try lock.withLock {
            do {
                try setAll(links, outside: Set(batch.map(ObjectIdentifier.init)))
            } catch {
                discardInserted(batch)
                throw error
            }
        }
    }

    /// Sets fields and relationships of objects of this context as one change, all or nothing. Each is
    /// checked first (`check`); a relationship's set can still fail after that, because it reads the store
    /// (the object a target leaves when its to-one inverse moves, not loaded yet, may hold a damaged cell;
    /// an interrupt or an I/O error). Then every object outside `batch` that the sets changed, the
    /// objects set included, is put back as it was, pending changes included.
    package func setAll(_ changes: [(object: ModelObject, key: String, value: Value)], outside batch: Set<ObjectIdentifier> = []) throws {
        try lock.withLock {
            for change in changes { try check(change.object, [(change.key, change.value)]) }
            let saved = try stateReachedBy(changes, outside: batch)
            for state in saved.objects.values { state.openCheckpoints() }
            do {
                for change in changes { try set(change.object, change.key, change.value) }
            } catch {
                restore(saved)
                throw error
            }
            for state in saved.objects.values { state.closeCheckpoints() }
        }
    }

    /// The state of every object outside `batch` that `set` of `links` can change, taken before the
    /// first link: each link's object and what its relationship names now (unlinked when replaced), each
    /// target (its inverse is set), and for a to-one inverse the object the target names now (it loses
    /// the target). Those ids are all a link reaches: the batch's objects are new, so what the links
    /// write into them names only objects of the batch. An id not loaded is kept as absent: a link that
    /// loads it made a new object of it, dropped again on failure. Added to `saved`, where an object
    /// already kept keeps its earlier state; `keepingLinkChanges` as `SavedObjectState`'s.
    func stateReachedBy(_ links: [(object: ModelObject, key: String, value: Value)], outside batch: Set<ObjectIdentifier>,
                        into saved: SavedObjects = SavedObjects(), keepingLinkChanges: Bool = false) throws -> SavedObjects {
        var saved = saved
        func keep(_ object: ModelObject) {
            guard !batch.contains(ObjectIdentifier(object)) else { return }
            saved.keep(object, in: self, keepingLinkChanges: keepingLinkChanges)
        }
        func keep(id: String) {
            if let object = identityMap[ObjectKey(id)] { keep(object) } else { saved.absent.insert(ObjectKey(id)) }
        }
        for link in links {
            keep(link.object)
            guard let i = link.object.layout.index[link.key], let rel = link.object.layout.relationships[i] else { continue }
            for id in ids(in: link.object[column: i]) { keep(id: id) }
            for target in try resolveTargets(rel, link.value, model: link.object.modelName, key: link.key) {
                keep(target)
                guard let inverse = rel.inverse, let j = target.layout.index[inverse], !target.layout.isToMany[j] else { continue }
                for id in ids(in: target[column: j]) { keep(id: id) }
            }
        }
        return saved
    }

    func restore(_ saved: SavedObjects) {
        for state in saved.objects.values { state.restore(into: self) }
        for key in saved.absent {
            guard let made = identityMap[key], saved.objects[ObjectIdentifier(made)] == nil else { continue }
            // Loaded by a failed link and perhaps changed by it: forgotten, as rollback forgets (the next
            // read makes a fresh object from the store).
            identityMap.remove(key)
            pending.forgetUpdate(made)
            made.state = .deleted
        }
    }

    /// Forgets objects inserted since the last save, as `rollback` forgets all of them: an insert of
    /// several objects that failed part-way leaves none of them pending. The objects must be linked to
    /// nothing outside `objects` (`link(_:insertedTogether:)` puts back what its links changed).
    package func discardInserted(_ objects: [ModelObject]) {
        lock.withLock {
            guard !objects.isEmpty else { return }
            pending.forgetInserts(objects)
            for object in objects where object.state == .inserted {
                object.state = .deleted
                identityMap.remove(object.key)
            }
        }
    }
}

/// The objects a batch of links may change, as they were before it (`ObjectContext.link(_:insertedTogether:)`).
struct SavedObjects {
    var objects: [ObjectIdentifier: SavedObjectState] = [:]
    /// Ids of objects the context had not loaded.
    var absent: Set<ObjectKey> = []

    /// Keeps `object`'s state unless it is kept already (its earlier state is the one to put back).
    mutating func keep(_ object: ModelObject, in context: ObjectContext, keepingLinkChanges: Bool) {
        guard objects[ObjectIdentifier(object)] == nil else { return }
        objects[ObjectIdentifier(object)] = SavedObjectState(object, inUpdated: context.pending.updated.holds(object),
                                                             keepingLinkChanges: keepingLinkChanges)
    }
}

/// Everything of an object that `set` changes, and whether the context counted it as updated. Its
/// to-many changes are not copied (a copy costs their length once changed): each keeps a log of what
/// undoes the changes made after its checkpoint. Unless `keepingLinkChanges`: then they are kept whole,
/// for changes a checkpoint's log cannot undo (an id renamed) or that outlast it (a save's).
struct SavedObjectState {
    let object: ModelObject
    let id: String
    let setSinceInsert: Set<Int>
    let linkChanges: [Int: LinkChange]?
    let values: [Value]
    let unloaded: Set<Int>
    let state: ModelObject.State
    let changed: Set<Int>
    /// The to-many relationships with a pending change.
    let linksChanged: Set<Int>
    let readValues: [Value?]?
    let readAt: Int
    let inUpdated: Bool

    init(_ object: ModelObject, inUpdated: Bool, keepingLinkChanges: Bool = false) {
        self.object = object
        id = object.id
        setSinceInsert = object.setSinceInsert
        linkChanges = keepingLinkChanges ? object.linkChanges : nil
        values = object.values
        unloaded = object.unloaded
        state = object.state
        changed = object.changed
        linksChanged = Set(object.linkChanges.keys)
        readValues = object.readValues
        readAt = object.readAt
        self.inUpdated = inUpdated
    }

    func openCheckpoints() {
        guard linkChanges == nil else { return }
        for i in linksChanged { object.linkChanges[i]?.openCheckpoint() }
    }

    func closeCheckpoints() {
        guard linkChanges == nil else { return }
        for i in linksChanged { object.linkChanges[i]?.closeCheckpoint() }
    }

    func restore(into context: ObjectContext) {
        if object.id != id { context.identityMap.rekey(object, to: id) }
        object.values = values
        object.unloaded = unloaded
        object.state = state
        object.changed = changed
        object.setSinceInsert = setSinceInsert
        if let linkChanges {
            object.linkChanges = linkChanges
        } else {
            for i in Array(object.linkChanges.keys) {
                if linksChanged.contains(i) { object.linkChanges[i]?.rollBackToCheckpoint() } else { object.linkChanges.removeValue(forKey: i) }
            }
        }
        object.readValues = readValues
        object.readAt = readAt
        if inUpdated {
            context.pending.recordUpdate(object)
        } else {
            context.pending.forgetUpdate(object)
        }
    }
}
