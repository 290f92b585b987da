/// To-many relationships in memory and their writes (since store format 2, `RelationshipStorage`): a list is
/// read on first access; a change is recorded link by link (`LinkChange`) and written by `save` as the
/// changed links only.
extension ObjectContext {
    /// Reads a to-many's ids in order, with this context's pending link changes applied.
    func loadToMany(_ object: ModelObject, _ i: Int) throws {
        var stored: [String] = []
        if object.state != .inserted {
            let statement = try database.cachedStatement(object.layout.storage[i]!.membersSQL)
            defer { statement.reset() }
            try statement.bind([.text(object.id)])
            while try statement.step() { stored.append(statement.string(0)) }
        }
        setLoadedMembers(object, i, stored)
    }

    /// Makes `stored` (the store's members, in order) the loaded list of `object`'s to-many `i`, with the
    /// links this context changed since applied.
    func setLoadedMembers(_ object: ModelObject, _ i: Int, _ stored: [String]) {
        let list = object.linkChanges[i].map { $0.applied(to: stored) } ?? stored
        object[column: i] = .array(list.map(Value.string))
        object.unloaded.remove(i)
    }

    /// Reads the stored members of `object`'s to-many `i` as objects with one statement through the
    /// relationship's index (a cascade then finds them in the identity map instead of one read each).
    func prefetchMembers(_ object: ModelObject, _ i: Int) throws {
        guard let storage = object.layout.storage[i], let target = layouts[storage.target] else { return }
        let statement = try database.cachedStatement(
            "SELECT \(target.selectList) FROM \(target.table) WHERE \(target.table).\(StoreFormat.key) IN (\(storage.membersSQL(owner: "?")))")
        defer { statement.reset() }
        try statement.bind([.text(object.id)])
        while try statement.step() { _ = try materialize(statement, layout: target) }
    }

    private func noteLinkChange(_ object: ModelObject, _ i: Int, _ change: (inout LinkChange) -> Void) {
        pending.aboutToChange(object)
        pending.noteLinksChanged()
        if object.state == .persisted {
            keepReadValues(object)
            pending.recordUpdate(object)
        }
        change(&object.linkChanges[i, default: LinkChange()])
    }

    /// Links `id` at the end of `object`'s to-many `i` in O(1): the change is recorded and a list in
    /// memory is dropped, to be read again (with the recorded changes) on its next access. Updating it in
    /// place would cost its length per link: building a list of n one link at a time would be quadratic.
    func addLink(_ object: ModelObject, _ i: Int, _ id: String) {
        if object.linkChanges[i]?.replaced == true {
            // Set as a whole: the list in memory is the truth until save.
            let current = ids(in: object[column: i])
            guard !current.contains(id) else { return }
            object[column: i] = .array((current + [id]).map(Value.string))
        } else {
            forgetList(object, i)
        }
        noteLinkChange(object, i) { $0.add(id) }
    }

    func removeLink(_ object: ModelObject, _ i: Int, _ id: String) {
        if object.linkChanges[i]?.replaced == true {
            guard case .array(let items) = object[column: i], items.contains(.string(id)) else { return }
            object[column: i] = .array(items.filter { $0 != .string(id) })
        } else {
            forgetList(object, i)
        }
        noteLinkChange(object, i) { $0.remove(id) }
    }

    private func forgetList(_ object: ModelObject, _ i: Int) {
        object[column: i] = .array([])
        object.unloaded.insert(i)
    }

    /// Sets the whole list (loaded by the caller); save diffs it against the stored one.
    func replaceLinks(_ object: ModelObject, _ i: Int, _ ids: [String]) {
        object[column: i] = .array(ids.map(Value.string))
        noteLinkChange(object, i) { $0.markReplaced() }
    }

    /// The stored lists of the to-many relationships set as a whole, read inside the save transaction
    /// before any row is written (a reverse-column list changes as its members' rows are written).
    func storedListsOfReplacedLinks() throws -> [ObjectIdentifier: [Int: [String]]] {
        var result: [ObjectIdentifier: [Int: [String]]] = [:]
        for object in pending.objects where !object.linkChanges.isEmpty {
            for (i, change) in object.linkChanges where change.replaced && object.layout.storage[i]!.writesLinks {
                var stored: [String] = []
                if object.state == .persisted || pending.deleted.holds(object) {
                    let statement = try database.cachedStatement(object.layout.storage[i]!.membersSQL)
                    defer { statement.reset() }
                    try statement.bind([.text(object.id)])
                    while try statement.step() { stored.append(statement.string(0)) }
                }
                result[ObjectIdentifier(object), default: [:]][i] = stored
            }
        }
        return result
    }

    /// Decides the changed links of every pending object (`LinkPlan`), inside the save transaction before
    /// any row is written: unlinks, then appends at the end of each list. A list set as a whole keeps its
    /// longest prefix that is in stored order and rewrites the positions from there. A member whose row
    /// this save writes anyway (inserted, or its to-one changed to the owner), listed through its own
    /// row's position column, is placed by that write.
    ///
    /// An owner deleted in this save has its unlinks written too (not its links: its rows go): the cascade
    /// that follows (`closeDeleteSet`) reads the store's links, and must not reach a member the owner let go.
    func planLinks(storedLists: [ObjectIdentifier: [Int: [String]]]) throws -> LinkPlan {
        let live = (pending.inserted + Array(pending.updated.values)).filter { $0.state != .deleted }
        let objects = (live + Array(pending.deleted.values)).filter { !$0.linkChanges.isEmpty }
        var plan = LinkPlan()
        let writer = LinkWriter(database: try database)
        for object in objects {
            for (i, change) in object.linkChanges.sorted(by: { $0.key < $1.key }) {
                let storage = object.layout.storage[i]!
                guard storage.writesLinks else { continue }
                var removed = change.removed
                var appended = change.added
                if change.replaced {
                    let stored = storedLists[ObjectIdentifier(object)]?[i] ?? []
                    let list = ids(in: object[column: i])
                    let members = Set(list)
                    removed = Set(stored.filter { !members.contains($0) })
                    let kept = stored.filter { members.contains($0) }
                    var prefix = 0
                    while prefix < kept.count, prefix < list.count, kept[prefix] == list[prefix] { prefix += 1 }
                    appended = Array(list[prefix...])
                }
                if storage.kind == .reverseColumn {
                    // A member whose row this save deletes leaves every list with its row.
                    removed = removed.filter { id in pending.deleted[id].map { $0.modelName != storage.target } ?? true }
                }
                if !removed.isEmpty { plan.remove(removed.sorted(), from: object.id, on: storage) }
                guard !appended.isEmpty, object.state != .deleted else { continue }
                // A member names its owner in the to-one column `inverse` of its own row.
                let inverse = storage.inverseColumn.flatMap { layouts[storage.target]?.index[$0] }
                var position = try writer.nextPosition(of: object.id, on: storage)
                for id in appended {
                    defer { position += 1 }
                    if let inverse, let member = identityMap[ObjectKey(id)], member.modelName == storage.target,
                       rowWriteNames(member, object, in: inverse) {
                        plan.placeWithRow(member, column: inverse, at: position)
                    } else {
                        plan.place(id, of: object.id, at: position, on: storage)
                    }
                }
            }
        }
        return plan
    }

    /// Whether this save writes `member`'s row with its to-one column `i` naming `owner`: an insert, or
    /// an update of that column.
    private func rowWriteNames(_ member: ModelObject, _ owner: ModelObject, in i: Int) -> Bool {
        switch member.state {
        case .inserted: break
        case .persisted: guard member.changed.contains(i), pending.updated.holds(member) else { return false }
        case .deleted: return false
        }
        return member[column: i] == .string(owner.id)
    }
}
