import Foundation

extension ObjectContext {
    /// Writes every pending change in one transaction. On any failure (a constraint, an id naming no row,
    /// a busy store) the transaction is rolled back, the store is as before, and the changes stay
    /// pending so the caller can fix them and save again.
    ///
    /// A pending insert that upserts (`ModelObject.upsertsOnSave`) and whose unique value a stored row
    /// holds now becomes the update of that row, decided inside this transaction (ObjectContext+SaveUpsert).
    ///
    /// Every row it changes or deletes must still be as this context read it: when another connection
    /// changed or deleted it since, the save throws `ContextError.conflict` and writes nothing (optimistic
    /// concurrency, ARCHITECTURE.md I3; redo the work from a fresh read: `rollback`, fetch, change, save). A store migrated
    /// since the context was made throws `StoreError.schemaChanged`.
    ///
    /// Once the save has committed (inside a `transaction`: once that has), the models it wrote are
    /// announced to the process (`StoreChangeCenter`), after the lock is released where the caller holds none.
    public func save() throws {
        // Announced after the commit and outside the lock (a save inside a `transaction`: at its commit).
        var committed: Set<String> = []
        defer { SaveAnnouncer.announce(committed, storeAt: storeRealPath) }
        try lock.withLock {
            try throwDeferredFailures()
            guard pending.hasChanges else { return }
            var modelsSaved: Set<String> = []
            var written = 0
            func step() throws {
                #if VEIN_TEST_HOOKS
                try saveFailureInjection?(written)
                #endif
                written += 1
            }
            var heldObjectUpdates = HeldObjectUpdates()
            var upsertUndo = SaveUpsertUndo(pending: pending.checkpoint())
            do {
                try database.transaction(.immediate) {
                    try requireSchemaUnchanged()
                    // All checked before anything is written: this save's own writes (nullified
                    // references) must not look like another process's.
                    let changed = pending.updated.values.filter { !$0.changed.isEmpty }
                    if !changed.isEmpty {
                        let ids = try idSet("_vein_checked", changed.map(\.id))
                        try requireUnchangedSinceRead(changed, in: { _ in ids })
                    }
                    if !pending.deleted.isEmpty {
                        try startDeleteSet()
                        try requireUnchangedSinceRead(Array(pending.deleted.values), in: { DeleteSet.ids(of: $0) })
                        try requireCascadedLinksStand()
                    }
                    try upsertInsertsMeetingStoredRows(undo: &upsertUndo)
                    let links = try planLinks(storedLists: try storedListsOfReplacedLinks())
                    // The rows this save writes record themselves in the change log, with the log's
                    // triggers off (docs/history.md): a trigger per row would cost more than the row.
                    let recorder = try database.transactionObserver as? ChangeRecorder
                    // Each model's table in the log, looked up once per model, not per row.
                    var recordedTables: [ObjectAddress: Int?] = [:]
                    func recordedTable(_ layout: ModelLayout) -> Int? {
                        guard let recorder else { return nil }
                        let address = ObjectAddress(layout)
                        if let known = recordedTables[address] { return known }
                        let index = recorder.tableIndex(layout.model.name)
                        recordedTables[address] = index
                        return index
                    }
                    func writeRows() throws {
                        // Changed rows before new ones: a unique value an unsaved change moves away from a row
                        // is free for a new row of the same save (rename A-1 to A-2, insert A-1). References
                        // and links are checked after every write, so the order of rows is otherwise free.
                        for object in pending.updated.values where !object.changed.isEmpty {
                            try step()
                            let layout = object.layout
                            let columns = object.changed.sorted()
                            // A to-one changed to an owner that lists it by position: the position goes with the row.
                            // One changed to nil takes its position away with it, whatever else the save does to
                            // the list it left (its owner may be deleted in this save: no removal then clears it).
                            var positionIndexes: [Int] = []
                            let positions = layout.positionedColumns.compactMap { i -> (String, Int64?)? in
                                let column = layout.storage[i]!.positionColumn!
                                if let position = links.positionWrittenWithRow(of: object, column: i) {
                                    positionIndexes.append(i)
                                    return (column, position)
                                }
                                guard object.changed.contains(i) && object[column: i] == .null else { return nil }
                                positionIndexes.append(i)
                                return (column, nil)
                            }
                            let assignments = (columns.map { layout.columns[$0] } + positions.map(\.0)).map { "\(SQL.quoteIdentifier($0)) = ?" }
                            let statement = try database.cachedStatement(
                                "UPDATE OR FAIL \(layout.table) SET \(assignments.joined(separator: ", ")) WHERE \(StoreFormat.key) = ?")
                            defer { statement.reset() }
                            let logged = recordedTable(layout)
                            if let recorder, let logged { recorder.begin(.update, table: logged, id: object.id, count: columns.count + positions.count) }
                            for (n, i) in columns.enumerated() {
                                let value = object[column: i]
                                try layout.codecs[i]!.bind(value, to: statement, at: n + 1)
                                if let recorder, let logged { recorder.append(table: logged, column: layout.loggedColumn[i]!, value) }
                            }
                            for (n, position) in positions.enumerated() {
                                if let value = position.1 {
                                    try statement.bind(int64: value, at: columns.count + n + 1)
                                } else {
                                    try statement.bindNull(at: columns.count + n + 1)
                                }
                                if let recorder, let logged {
                                    recorder.append(table: logged, column: layout.loggedPositionColumn[positionIndexes[n]]!, position.1)
                                }
                            }
                            try statement.bind(.text(object.id), at: assignments.count + 1)
                            try statement.step()
                        }
                        // One statement lookup per model, not per row (the cache key is the whole SQL text).
                        var insertStatements: [ObjectAddress: Statement] = [:]
                        for object in pending.inserted {
                            try step()
                            let key = ObjectAddress(object.layout)
                            let statement = try insertStatements[key] ?? database.cachedStatement(object.layout.insertSQL)
                            insertStatements[key] = statement
                            defer { statement.reset() }
                            let layout = object.layout
                            let logged = recordedTable(layout)
                            // The key's text made on the stack for the row, not kept in the object (`ModelObject.id` would keep it).
                            try object.key.withText { id in
                                try statement.bind(utf8: id, at: 1)
                                if let recorder, let logged {
                                    recorder.begin(.insert, table: logged, idUTF8: id, count: layout.insertedColumns.count + layout.positionedColumns.count)
                                }
                            }
                            for (n, i) in layout.insertedColumns.enumerated() {
                                let value = object[column: i]
                                try layout.codecs[i]!.bind(value, to: statement, at: n + 2)
                                if let recorder, let logged { recorder.append(table: logged, column: layout.loggedColumn[i]!, value) }
                            }
                            for (n, i) in layout.positionedColumns.enumerated() {
                                let position = links.positionWrittenWithRow(of: object, column: i)
                                try statement.bind(position.map(DatabaseValue.integer) ?? .null, at: layout.insertedColumns.count + n + 2)
                                if let recorder, let logged { recorder.append(table: logged, column: layout.loggedPositionColumn[i]!, position) }
                            }
                            try statement.step()
                        }
                    }
                    if let recorder { try recorder.recordingDirectly(on: try database, writeRows) } else { try writeRows() }
                    try links.write(to: database)
                    for _ in pending.deleted.values { try step() }
                    let deletedModels = try deleteRows()
                    if !deletedModels.isEmpty { try requireUpsertedRowsStand(upsertUndo) }
                    var deleted = DeletedRows(models: deletedModels, database: try database)
                    try checkReferences(deleted: &deleted)
                    heldObjectUpdates = try heldObjectsFollowing(deleted: &deleted)
                    modelsSaved = pending.modelsWritten(deletedModels: deletedModels, storages: relationshipStorages)
                }
            } catch {
                upsertUndo.apply(to: self)
                if let error = error as? DatabaseError, error.isConstraintViolation { throw ContextError.constraintViolation(error.message) }
                if let error = error as? DatabaseError, error.isBusy { throw StoreError.busy(path) }
                throw error
            }
            for object in pending.inserted {
                object.state = .persisted
                object.linkChanges = [:]
                // Saved: the row exists, and no later save decides again what the insert gave.
                object.upsertsOnSave = false
                object.setSinceInsert = []
            }
            for object in pending.updated.values {
                object.upsertsOnSave = false  // an insert this save made the update of a stored row
                object.changed = []
                object.linkChanges = [:]
                object.readValues = nil
            }
            pending.forgetSavedWork()
            heldObjectUpdates.apply()
            committed = announcer.saved(modelsSaved, insideTransaction: try database.isInTransaction)
        }
    }

    /// Inside the save transaction, before any write: each object `delete` took with an owner through a
    /// link table is still linked to that owner in the store, or by this context's own pending change.
    /// Another process may have unlinked it since the list was read (a link is not a column, so the
    /// conflict check of the rows does not see it); deleting it then would delete a row the cascade no
    /// longer reaches.
    private func requireCascadedLinksStand() throws {
        for (id, owner, relationship) in pending.deletesThroughLinks {
            guard owner.state == .deleted, pending.deleted.holds(owner) else { continue }
            if let change = owner.linkChanges[relationship], change.replaced || change.isAdded(id) { continue }
            let storage = owner.layout.storage[relationship]!
            let statement = try database.cachedStatement("SELECT \(storage.containsSQL(owner: "?"))")
            defer { statement.reset() }
            try statement.bind([.text(id), .text(owner.id)])  // member first: see containsSQL
            guard try statement.step(), statement.int64(0) != 0 else {
                throw ContextError.conflict(model: pending.deleted[id]!.modelName, id: id)
            }
        }
    }

    /// Inside the save transaction: each stored row still holds every value this context read of it.
    /// Set-based: each model's rows are read with one statement through the primary key, from the
    /// temporary id set `idSet(model)` gives (a row gone, or a value changed, is a conflict).
    private func requireUnchangedSinceRead(_ objects: [ModelObject], in idSet: (String) -> String) throws {
        let read = objects.filter { $0.readValues != nil }
        guard !read.isEmpty else { return }
        // Grouped by layout (a model's objects share it): a pointer to hash, where a model name is a string.
        for group in Dictionary(grouping: read, by: { ObjectIdentifier($0.layout) }).values.sorted(by: { $0[0].modelName < $1[0].modelName }) {
            let layout = group[0].layout, model = layout.model.name
            // Every column any of them read; each object is compared on the ones it read.
            let columns = layout.columns.indices.filter { i in group.contains { $0.readValues![i] != nil } }
            let list = (["\(StoreFormat.key)"] + columns.map { SQL.quoteIdentifier(layout.columns[$0]) }).joined(separator: ", ")
            let statement = try database.cachedStatement("SELECT \(list) FROM \(layout.table) WHERE \(StoreFormat.key) IN \(idSet(model))")
            defer { statement.reset() }
            // Keyed by `ObjectKey`: a ULID's 128 bits, read from the row's bytes without making its string.
            var unmatched: [ObjectKey: ModelObject] = [:]
            unmatched.reserveCapacity(group.count)
            for object in group { unmatched[object.key] = object }
            while try statement.step() {
                let key = ObjectKey(canonicalUTF8: statement.textBytes(0)) ?? ObjectKey(statement.string(0))
                guard let object = unmatched.removeValue(forKey: key), let values = object.readValues else { continue }
                for (n, i) in columns.enumerated() {
                    guard let value = values[i] else { continue }
                    // Text as read back is its stored bytes: equal bytes are an equal value, without making
                    // a string. Any other cell is read and compared as a value (text that differs only in
                    // its normal form is equal, as `Value`'s `==` says).
                    if case .string(let text) = value, statement.isText(n + 1, equalTo: text) { continue }
                    if try layout.read(statement, n + 1, as: i, id: object.id) != value {
                        throw ContextError.conflict(model: model, id: object.id)
                    }
                }
            }
            if let gone = unmatched.values.map(\.id).min() { throw ContextError.conflict(model: model, id: gone) }
        }
    }

    /// Fills a temporary table with ids, for statements that work on the whole set at once.
    private func idSet(_ name: String, _ ids: [String]) throws -> String {
        let table = "temp.\(SQL.quoteIdentifier(name))"
        try database.execute("CREATE TEMP TABLE IF NOT EXISTS \(SQL.quoteIdentifier(name)) (\"id\" TEXT PRIMARY KEY NOT NULL)")
        try database.execute("DELETE FROM \(table)")
        try insertRows("INSERT OR IGNORE INTO \(table) (\"id\")", "(?)", width: 1, ids) { try $1.bind(text: $0, at: $2) }
        return "(SELECT \"id\" FROM \(table))"
    }

    /// Inside the save transaction: every id written names a row that exists after the writes, and no
    /// deleted row is still named (by a relationship whose rule is `noAction`). Deleted rows: one
    /// statement per relationship per save, through the indexes. Written ids: each distinct id once,
    /// through the target's primary key (`idsWritten`); the rows and links this save did not write held
    /// only existing ids before it (this check, at every save), and a delete of this save is the first part's.
    private func checkReferences(deleted: inout DeletedRows) throws {
        for storage in relationshipStorages where storage.kind != .reverseColumn && deleted.models.contains(storage.target) {
            if let row = try database.rows(storage.referencingSQL(targetsIn: DeleteSet.ids(of: storage.target)) + " LIMIT 1").first {
                throw ContextError.danglingReference(model: storage.model, field: storage.name,
                                                     id: (row[1].string ?? "") + " (still named by \(row[0].string ?? ""))")
            }
        }
        // A row this save deleted (a delete rule may reach rows this context never loaded): the ids its row
        // held went with it, and an id naming it was cleared by the rule, or is the first part's to report.
        for (storage, ids) in try idsWritten(skipping: { try deleted.contains($0) }) {
            let statement = try database.cachedStatement("SELECT 1 FROM \(SQL.quoteIdentifier(storage.target)) WHERE \(StoreFormat.key) = ?")
            for id in ids.sorted() {
                defer { statement.reset() }
                try statement.bind([.text(id)])
                guard try statement.step() || deleted.ids(of: storage.target).contains(id) else {
                    throw ContextError.danglingReference(model: storage.model, field: storage.name, id: id)
                }
            }
        }
    }

    /// The ids this save writes as references, by the relationship that holds them, in the order of
    /// `relationshipStorages`: the to-one columns of new rows and the changed ones of stored rows, and
    /// the links added to a list kept in a link table (a list set whole: all of it, its new links are
    /// among them). A reverse column is its to-one side's column, checked there. The objects `skipping`
    /// picks are left out.
    private func idsWritten(skipping: (ModelObject) throws -> Bool) throws -> [(RelationshipStorage, Set<String>)] {
        var written: [String: [Int: Set<String>]] = [:]  // model, column
        func note(_ object: ModelObject) throws {
            let layout = object.layout
            guard object.state != .deleted, !layout.referenceColumns.isEmpty, try !skipping(object) else { return }
            for i in layout.referenceColumns {
                let storage = layout.storage[i]!
                var ids: [String] = []
                if storage.kind == .column {
                    guard object.state == .inserted || object.changed.contains(i), !object.unloaded.contains(i) else { continue }
                    ids = self.ids(in: object[column: i])
                } else if let change = object.linkChanges[i] {
                    ids = change.replaced ? self.ids(in: object[column: i]) : change.added
                }
                if !ids.isEmpty { written[object.modelName, default: [:]][i, default: []].formUnion(ids) }
            }
        }
        for object in pending.inserted { try note(object) }
        for object in pending.updated.values { try note(object) }
        return written.keys.sorted().flatMap { model in
            let layout = layouts[model]!
            return written[model]!.sorted { $0.key < $1.key }.map { (layout.storage[$0.key]!, $0.value) }
        }
    }
}
