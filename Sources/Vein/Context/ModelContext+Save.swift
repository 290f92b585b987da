import Foundation

extension ModelContext {
    /// Writes every pending change in one transaction. On any failure (a constraint, an id naming no row,
    /// a busy store) the transaction is rolled back, the store is as before, and the changes stay
    /// pending so the caller can fix them and save again.
    ///
    /// Every row it changes or deletes must still be as this context read it: when another connection
    /// changed or deleted it since, the save throws `ContextError.conflict` and writes nothing (optimistic
    /// concurrency; redo the work from a fresh read: `rollback`, fetch, change, save). A store migrated
    /// since the context was made throws `StoreError.schemaChanged`.
    public func save() throws {
        try lock.withLock {
            guard hasChanges else { return }
            var written = 0
            func step() throws {
                try saveFailureInjection?(written)
                written += 1
            }
            do {
                try database.transaction(.immediate) {
                    try requireSchemaUnchanged()
                    // All checked before anything is written: this save's own writes (nullified
                    // references) must not look like another process's.
                    for object in updated.values where !object.changed.isEmpty { try requireUnchangedSinceRead(object) }
                    for object in deleted.values { try requireUnchangedSinceRead(object) }
                    let storedLists = try storedListsOfReplacedLinks()
                    // One statement lookup per model, not per row (the cache key is the whole SQL text).
                    var insertStatements: [ObjectIdentifier: Statement] = [:]
                    for object in inserted {
                        try step()
                        let key = ObjectIdentifier(object.layout)
                        let statement = try insertStatements[key] ?? database.cachedStatement(object.layout.insertSQL)
                        insertStatements[key] = statement
                        defer { statement.reset() }
                        try statement.bind(.text(object.id), at: 1)
                        for (n, i) in object.layout.insertedColumns.enumerated() {
                            try object.layout.codecs[i]!.bind(object.values[i], to: statement, at: n + 2)
                        }
                        try statement.step()
                    }
                    for object in updated.values where !object.changed.isEmpty {
                        try step()
                        let columns = object.changed.sorted()
                        let assignments = columns.map { "\(SQL.quoteIdentifier(object.layout.columns[$0])) = ?" }.joined(separator: ", ")
                        let statement = try database.cachedStatement("UPDATE \(object.layout.table) SET \(assignments) WHERE \"id\" = ?")
                        defer { statement.reset() }
                        for (n, i) in columns.enumerated() {
                            try object.layout.codecs[i]!.bind(object.values[i], to: statement, at: n + 1)
                        }
                        try statement.bind(.text(object.id), at: columns.count + 1)
                        try statement.step()
                    }
                    try writeLinks(storedLists: storedLists)
                    for _ in deleted.values { try step() }
                    try deleteRows()
                    try checkReferences()
                }
            } catch let error as DatabaseError where error.isConstraintViolation {
                throw ContextError.constraintViolation(error.message)
            } catch let error as DatabaseError where error.isBusy {
                throw StoreError.busy(path)
            }
            for object in inserted { object.state = .persisted }
            for object in inserted { object.linkChanges = [:] }
            for object in updated.values {
                object.changed = []
                object.linkChanges = [:]
                object.readValues = nil
            }
            inserted = []
            updated = [:]
            deleted = [:]
        }
    }

    /// Inside the save transaction: the stored row still holds every value this context read of it.
    private func requireUnchangedSinceRead(_ object: ModelObject) throws {
        guard let read = object.readValues else { return }
        let layout = object.layout
        let columns = read.indices.filter { read[$0] != nil }
        let list = (["\"id\""] + columns.map { SQL.quoteIdentifier(layout.columns[$0]) }).joined(separator: ", ")
        let statement = try database.cachedStatement("SELECT \(list) FROM \(layout.table) WHERE \"id\" = ?")
        defer { statement.reset() }
        try statement.bind([.text(object.id)])
        guard try statement.step() else { throw ContextError.conflict(model: object.modelName, id: object.id) }
        for (n, i) in columns.enumerated() where try layout.read(statement, n + 1, as: i, id: object.id) != read[i] {
            throw ContextError.conflict(model: object.modelName, id: object.id)
        }
    }

    /// Fills a temporary table with ids, for statements that work on the whole set at once.
    private func idSet(_ name: String, _ ids: [String]) throws -> String {
        let table = "temp.\(SQL.quoteIdentifier(name))"
        try database.execute("CREATE TEMP TABLE IF NOT EXISTS \(SQL.quoteIdentifier(name)) (\"id\" TEXT PRIMARY KEY NOT NULL)")
        try database.execute("DELETE FROM \(table)")
        let insert = try database.cachedStatement("INSERT OR IGNORE INTO \(table) (\"id\") VALUES (?)")
        for id in ids {
            defer { insert.reset() }
            try insert.bind([.text(id)])
            try insert.step()
        }
        return "(SELECT \"id\" FROM \(table))"
    }

    private var relationshipStorages: [RelationshipStorage] {
        layouts.values.sorted { $0.model.name < $1.model.name }.flatMap { $0.storage.compactMap { $0 } }
    }

    /// The delete rule that governs references held by `storage`: its inverse's (the deleted side's),
    /// or `nullify` for a one-way relationship (not kept in step in memory, always cleared).
    private func ruleForReferences(_ storage: RelationshipStorage) -> DeleteRule {
        guard let inverse = storage.relationship.inverse,
              let rule = manifest.model(named: storage.target)?.relationship(named: inverse)?.deleteRule else { return .nullify }
        return rule
    }

    /// Deletes the rows of `deleted` and applies the delete rules in the store, one statement per model
    /// and per relationship, through the indexes: references to a deleted row are cleared (the context
    /// already did so on the objects it holds) unless the rule is `noAction`, and a deleted row's own
    /// links go with it.
    private func deleteRows() throws {
        guard !deleted.isEmpty else { return }
        let set = try idSet("_vein_deleted", deleted.keys.sorted())
        let models = Set(deleted.values.map(\.modelName))
        for model in models.sorted() {
            try database.execute("DELETE FROM \(SQL.quoteIdentifier(model)) WHERE \"id\" IN \(set)")
        }
        for storage in relationshipStorages {
            if models.contains(storage.model), storage.relationship.inverse == nil || storage.relationship.deleteRule != .noAction,
               let sql = storage.clearSQL(ownersIn: set) {
                try database.execute(sql)
            }
            if models.contains(storage.target), ruleForReferences(storage) != .noAction, let sql = storage.clearSQL(targetsIn: set) {
                try database.execute(sql)
            }
        }
    }

    /// Inside the save transaction: every id written names a row that exists after the writes, and no
    /// deleted row is still named (by a relationship whose rule is `noAction`). Set-based: one statement
    /// per relationship per save, through the indexes, never a scan per object.
    private func checkReferences() throws {
        let deletedModels = Set(deleted.values.map(\.modelName))
        if !deletedModels.isEmpty {
            let set = "(SELECT \"id\" FROM temp.\"_vein_deleted\")"
            for storage in relationshipStorages where storage.kind != .reverseColumn && deletedModels.contains(storage.target) {
                if let row = try database.rows(storage.referencingSQL(targetsIn: set) + " LIMIT 1").first {
                    throw ContextError.danglingReference(model: storage.model, field: storage.name,
                                                         id: (row[1].string ?? "") + " (still named by \(row[0].string ?? ""))")
                }
            }
        }
        let touched = (inserted + Array(updated.values)).filter { $0.state != .deleted }
        guard !touched.isEmpty else { return }
        let touchedModels = Set(touched.map(\.modelName))
        let set = try idSet("_vein_touched", touched.map(\.id))
        for storage in relationshipStorages where storage.kind != .reverseColumn && touchedModels.contains(storage.model) {
            if let row = try database.rows(storage.danglingSQL(ownersIn: set) + " LIMIT 1").first {
                throw ContextError.danglingReference(model: storage.model, field: storage.name, id: row[1].string ?? "")
            }
        }
    }
}
