/// Deleting (docs/store-format.md delete rules). Two halves that never read a relationship list per deleted row:
///
/// - in memory, `delete` applies the rules to the objects this context holds, so both sides of a pair
///   agree at once (`a.isDeleted` after its post is deleted, a held tag forgets the post);
/// - in the store, `save` (and `applyDeleteRules`, to see a delete's effect before saving) puts the
///   deleted ids in `DeleteSet` and runs each rule as set-based SQL through the indexes: `cascade` in
///   rounds, one `INSERT … SELECT` per cascading relationship per round until a round adds nothing;
///   `deny` one statement per deny relationship; the row deletes one statement per model; `nullify` and
///   the links of deleted rows one statement per relationship.
extension ObjectContext {
    /// Deletes an object, applying each relationship's delete rule: `nullify` removes it from the other
    /// side, `cascade` deletes what it points to, `deny` refuses while it points to anything, `noAction`
    /// leaves the other side alone (a save then fails if that leaves an id naming no row).
    ///
    /// A `deny` this context can see (a list it holds, or one it reads to keep held objects in step)
    /// throws here; any other throws the same `deleteDenied` from `applyDeleteRules` or `save`. Rows a
    /// cascade reaches that this context does not hold are found in the store, set-based, at save.
    public func delete(_ object: ModelObject) throws {
        try lock.withLock {
            guard object.state != .deleted else {
                pending.forgetDeleteThroughLink(of: object.id)  // named by the caller now: deleted whatever links say
                return
            }
            // Collect the whole cascade first, so a `deny` anywhere refuses before anything changes.
            var doomed: [ModelObject] = []
            var seen = Set<ObjectIdentifier>()  // one object per id in a context (the identity map)
            var throughLinks: [String: (owner: ModelObject, relationship: Int)] = [:]
            func collect(_ o: ModelObject) throws {
                guard seen.insert(ObjectIdentifier(o)).inserted else { return }
                doomed.append(o)
                for (i, rel) in o.layout.relationships.enumerated() {
                    guard let rel, let targets = try membersInMemory(o, i) else { continue }
                    switch rel.deleteRule {
                    case .deny:
                        // As the store's rule counts them: a member this context already deletes is no reason.
                        let standing = targets.filter { pending.deleted[$0] == nil && pending.deletedByRule[$0] == nil }
                        guard standing.isEmpty else {
                            throw ContextError.deleteDenied(model: o.modelName, id: o.id, relationship: rel.name, count: standing.count)
                        }
                    case .cascade:
                        for id in targets {
                            guard let t = loadedObject(rel.target, id: id) else { continue }
                            if o.layout.storage[i]?.kind == .linkTable, !seen.contains(ObjectIdentifier(t)) { throughLinks[t.id] = (o, i) }
                            try collect(t)
                        }
                    default: break
                    }
                }
            }
            try collect(object)
            // Inverse sides kept in step on the objects this context holds; `save` clears the references
            // in the store with one statement per relationship (`RelationshipStorage.clearSQL`).
            for o in doomed {
                for (i, rel) in o.layout.relationships.enumerated() {
                    guard let rel, rel.deleteRule != .noAction, let inverse = rel.inverse, !o.unloaded.contains(i) else { continue }
                    for id in ids(in: o[column: i]) {
                        if let t = loadedObject(rel.target, id: id), !seen.contains(ObjectIdentifier(t)) { try unlink(t, inverse, o.id) }
                    }
                }
            }
            for (id, link) in throughLinks where id != object.id {
                pending.recordDeleteThroughLink(of: id, owner: link.owner, relationship: link.relationship)
            }
            for o in doomed {
                pending.aboutToChange(o)
                if o.state != .inserted { keepReadValues(o) }
                pending.recordDelete(o)
                o.state = .deleted
            }
        }
    }

    /// The members of `o`'s relationship `i` as far as memory needs them: the value when loaded; a
    /// to-many list read through its index only when this context holds objects of the target model
    /// (they must follow the delete now); nil otherwise, left to the store's set-based rules at save.
    private func membersInMemory(_ o: ModelObject, _ i: Int) throws -> [String]? {
        if o.unloaded.contains(i) {
            guard o.layout.isToMany[i], o.state == .inserted || identityMap.hasHeld(o.layout.relationships[i]!.target) else { return nil }
            try loadLazy(o, i)
        }
        return ids(in: o[column: i])
    }

    /// Applies the delete rules of the pending deletes to the store's rows as `save` will, writing
    /// nothing: a `deny` that refuses throws `ContextError.deleteDenied`, and the rows `cascade` takes
    /// with them become pending deletes (`changes()` lists them; held objects are marked deleted). `save`
    /// does this itself; call it to see, or refuse, a delete's whole effect first (`vein query`).
    ///
    /// Each call adds to the delete set only the deletes made since the last (`DeleteSetProgress`), as
    /// rounds of their own: a delete statement in a session with many pending costs what it deletes.
    public func applyDeleteRules() throws {
        try lock.withLock {
            guard !pending.deleted.isEmpty else { return }
            // (Again, when a rolled-back transaction took the table away.)
            try database.execute(DeleteSet.createSQL)
            let batch: [ModelObject], firstRound: Int64
            let resumed = try pending.deleteSetProgress.map { try deleteSetHolds($0) } ?? false
            if resumed, let progress = pending.deleteSetProgress {
                batch = pending.deletesSinceRulesApplied
                firstRound = progress.nextRound
            } else {
                batch = Array(pending.deleted.values)
                firstRound = 0
                try database.execute("DELETE FROM \(DeleteSet.table)")
            }
            // Set again only once this run has completed: a run that fails part-way leaves the set to be rebuilt.
            pending.forgetDeleteSetProgress()
            try insertIntoDeleteSet(batch, round: firstRound)
            let (models, nextRound) = try closeDeleteSet(from: firstRound, models: Set(batch.map(\.modelName)))
            // The store does not have this context's pending links yet: a member unlinked in memory would
            // be found here through its stored link. A held object becomes a pending delete (which save
            // takes as named) only when no link is pending; otherwise it is listed, and save's cascade,
            // run after the links are written, decides.
            var byRule = resumed ? pending.deletedByRule : [:]
            for model in models.sorted() {
                let statement = try database.cachedStatement("SELECT \"id\" FROM \(DeleteSet.table) WHERE \"model\" = ? AND \"round\" > ?")
                defer { statement.reset() }
                try statement.bind([.text(model), .integer(firstRound)])
                while try statement.step() {
                    let id = statement.string(0)
                    if !pending.linksChangedSinceSave, let o = loadedObject(model, id: id), o.state == .persisted, o.readValues == nil,
                       o.linkChanges.isEmpty {
                        pending.aboutToChange(o)
                        keepReadValues(o)
                        pending.recordHeldObjectDeletedByRule(o)
                        byRule.removeValue(forKey: id)
                        o.state = .deleted
                    } else if pending.deleted[id] == nil {
                        byRule[id] = model
                    }
                }
            }
            pending.replaceDeletedByRule(with: byRule)
            let marker = ULID.make().description
            try database.execute("DELETE FROM \(DeleteSet.table) WHERE \"model\" = ''")
            try database.execute("\(DeleteSet.insertSQL) VALUES ('', ?, -1)", [.text(marker)])
            pending.rulesApplied(DeleteSetProgress(nextRound: nextRound, marker: marker))
        }
    }

    /// Whether the delete set still holds what the last `applyDeleteRules` left in it: a transaction
    /// rolled back since takes its rows away, and a save (or another context on the same connection)
    /// refills the set; either removes or replaces the run's marker row.
    private func deleteSetHolds(_ progress: DeleteSetProgress) throws -> Bool {
        try database.scalar("SELECT count(*) FROM \(DeleteSet.table) WHERE \"model\" = '' AND \"id\" = ?", [.text(progress.marker)])?.int64 == 1
    }

    /// Fills `DeleteSet` with the pending deletes, as its first round (before `save` writes anything: its
    /// conflict check of the deleted rows reads them through the set).
    func startDeleteSet() throws {
        pending.forgetDeleteSetProgress()
        try database.execute(DeleteSet.createSQL)
        try database.execute("DELETE FROM \(DeleteSet.table)")
        try insertIntoDeleteSet(pending.deleted.values, round: 0)
    }

    /// Inserts `rows` with the INSERT `sql` and one `rowSQL` (`(?, …)`, `width` placeholders) per row, many
    /// rows per statement: filling a temporary id set then costs a statement per few hundred ids, not one
    /// per id. `bind` binds one row's values from the index it is given on.
    func insertRows<Rows: Collection>(_ sql: String, _ rowSQL: String, width: Int, _ rows: Rows,
                                      bind: (Rows.Element, Statement, Int) throws -> Void) throws {
        guard width > 0, !rows.isEmpty else { return }
        let perStatement = max(1, 400 / width)  // well under SQLite 3.15's 999 variables
        var row = rows.startIndex
        var left = rows.count
        while left > 0 {
            // Full chunks share one statement, the rest goes one row each: two cached statements per
            // table, whatever the counts.
            let count = left >= perStatement ? perStatement : 1
            let statement = try database.cachedStatement(sql + " VALUES " + Array(repeating: rowSQL, count: count).joined(separator: ", "))
            defer { statement.reset() }
            for k in 0..<count {
                try bind(rows[row], statement, 1 + k * width)
                row = rows.index(after: row)
            }
            try statement.step()
            left -= count
        }
    }

    /// Puts `objects` in `DeleteSet` as round `round`, in id order (`ObjectKey.precedes`).
    func insertIntoDeleteSet(_ objects: some Collection<ModelObject>, round: Int64) throws {
        try insertRows(DeleteSet.insertSQL, DeleteSet.insertedRow, width: 3, ObjectKey.inIDOrder(objects)) { object, statement, at in
            try statement.bind(text: object.modelName, at: at)
            try object.key.withText { try statement.bind(utf8: $0, at: at + 1) }
            try statement.bind(int64: round, at: at + 2)
        }
    }

    /// Adds to `DeleteSet` (round `first` filled with rows of `models`) what `cascade` adds, round by
    /// round, then checks `deny` for the owners from round `first` on. Returns the models with rows in
    /// those rounds, and the round after the last.
    func closeDeleteSet(from first: Int64, models start: Set<String>) throws -> (models: Set<String>, nextRound: Int64) {
        var models = start
        let storages = relationshipStorages
        // Round n's owners add round n + 1's members; a model's round is empty once nothing new joins.
        var roundModels = models
        var round = first
        while !roundModels.isEmpty {
            var added = Set<String>()
            for storage in storages where storage.relationship.deleteRule == .cascade && roundModels.contains(storage.model) {
                let statement = try database.cachedStatement(storage.cascadeSQL)
                defer { statement.reset() }
                try statement.bind([.integer(round)])
                try statement.step()
                if try database.changes > 0 { added.insert(storage.target) }
            }
            models.formUnion(added)
            roundModels = added
            round += 1
        }
        for storage in storages where storage.relationship.deleteRule == .deny && models.contains(storage.model) {
            if let row = try database.rows(storage.deniedSQL, [.integer(first)]).first {
                throw ContextError.deleteDenied(model: storage.model, id: row[0].string ?? "", relationship: storage.name,
                                                count: Int(row[1].int64 ?? 0))
            }
        }
        return (models, round)
    }

    var relationshipStorages: [RelationshipStorage] {
        layouts.values.sorted { $0.model.name < $1.model.name }.flatMap { $0.storage.compactMap { $0 } }
    }

    /// The delete rule that governs references held by `storage`: its inverse's (the deleted side's),
    /// or `nullify` for a one-way relationship (not kept in step in memory, always cleared).
    private func ruleForReferences(_ storage: RelationshipStorage) -> DeleteRule {
        guard let inverse = storage.relationship.inverse,
              let rule = manifest.model(named: storage.target)?.relationship(named: inverse)?.deleteRule else { return .nullify }
        return rule
    }

    /// Inside the save transaction, after the other writes: deletes the rows of `deleted` and what the
    /// delete rules add to them, one statement per model and per relationship, through the indexes:
    /// references to a deleted row are cleared unless the rule is `noAction`, and a deleted row's own
    /// links go with it. Returns the models with deleted rows.
    func deleteRows() throws -> Set<String> {
        guard !pending.deleted.isEmpty else { return [] }
        let models = try closeDeleteSet(from: 0, models: Set(pending.deleted.values.map(\.modelName))).models
        for model in models.sorted() {
            try database.execute("DELETE FROM \(SQL.quoteIdentifier(model)) WHERE \(StoreFormat.key) IN \(DeleteSet.ids(of: model))")
        }
        for storage in relationshipStorages {
            if models.contains(storage.model), storage.relationship.inverse == nil || storage.relationship.deleteRule != .noAction,
               let sql = storage.clearSQL(ownersIn: DeleteSet.ids(of: storage.model)) {
                try database.execute(sql)
            }
            if models.contains(storage.target), ruleForReferences(storage) != .noAction,
               let sql = storage.clearSQL(targetsIn: DeleteSet.ids(of: storage.target)) {
                try database.execute(sql)
            }
        }
        return models
    }

    /// Inside the save transaction, after `deleteRows`: how the held objects must follow the store once
    /// it commits. Objects whose rows the rules deleted are to be marked deleted, and held relationship
    /// values naming a deleted row drop it (the store cleared them already). Reads only the deleted ids
    /// of models the context holds objects of, or names in a held value.
    func heldObjectsFollowing(deleted: inout DeletedRows) throws -> HeldObjectUpdates {
        var updates = HeldObjectUpdates()
        let models = deleted.models
        guard !models.isEmpty else { return updates }
        for object in identityMap.all where object.state != .deleted {
            if try deleted.contains(object) {
                updates.deleted.append(object)
                continue
            }
            for (i, rel) in object.layout.relationships.enumerated() {
                guard let rel, models.contains(rel.target), !object.unloaded.contains(i) else { continue }
                switch object[column: i] {
                case .string(let id) where try deleted.ids(of: rel.target).contains(id):
                    updates.values.append((object, i, .null))
                case .array(let items) where !items.isEmpty:
                    let gone = try deleted.ids(of: rel.target)
                    let kept = items.filter { !gone.contains($0.stringValue ?? "") }
                    if kept.count != items.count { updates.values.append((object, i, .array(kept))) }
                default: break
                }
            }
        }
        return updates
    }

    /// What a committed save changes on held objects (`heldObjectsFollowing`).
    struct HeldObjectUpdates {
        var deleted: [ModelObject] = []
        var values: [(ModelObject, Int, Value)] = []

        func apply() {
            for object in deleted { object.state = .deleted }
            for (object, i, value) in values { object[column: i] = value }
        }
    }
}
