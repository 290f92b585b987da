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
                    // One statement lookup per model, not per row (the cache key is the whole SQL text).
                    var insertStatements: [ObjectIdentifier: Statement] = [:]
                    for object in inserted {
                        try step()
                        let key = ObjectIdentifier(object.layout)
                        let statement = try insertStatements[key] ?? database.cachedStatement(object.layout.insertSQL)
                        insertStatements[key] = statement
                        defer { statement.reset() }
                        try statement.bind(.text(object.id), at: 1)
                        for (i, value) in object.values.enumerated() {
                            try statement.bind(Self.databaseValue(value, type: object.layout.types[i]), at: i + 2)
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
                            try statement.bind(Self.databaseValue(object.values[i], type: object.layout.types[i]), at: n + 1)
                        }
                        try statement.bind(.text(object.id), at: columns.count + 1)
                        try statement.step()
                    }
                    for object in deleted.values {
                        try step()
                        try database.execute("DELETE FROM \(object.layout.table) WHERE \"id\" = ?", [.text(object.id)])
                        try nullifyOneWayReferences(to: object)
                    }
                    try checkReferences()
                }
            } catch let error as DatabaseError where error.isConstraintViolation {
                throw ContextError.constraintViolation(error.message)
            } catch let error as DatabaseError where error.isBusy {
                throw StoreError.busy(database.path)
            }
            for object in inserted { object.state = .persisted }
            for object in updated.values {
                object.changed = []
                object.readValues = nil
            }
            inserted = []
            updated = [:]
            deleted = [:]
        }
    }

    static func databaseValue(_ value: Value, type: ValueType) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .string(let s): return .text(s)
        case .int(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .date(let d): return .real(d)
        case .bool(let b): return .integer(b ? 1 : 0)
        case .data(let d): return .blob(d)
        case .array(let items): return .text(JSONWriter.string(.array(items.map { .string($0.stringValue ?? "") })))
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

    /// Relationships without an inverse are not kept in step in memory; when their target is deleted
    /// they are nullified in the store (the default delete rule), so no id is left naming no row.
    private func nullifyOneWayReferences(to object: ModelObject) throws {
        for model in manifest.models {
            for rel in model.relationships where rel.target == object.modelName && rel.inverse == nil {
                let table = SQL.quoteIdentifier(model.name), column = SQL.quoteIdentifier(rel.name)
                if rel.isToMany {
                    let rows = try database.rows("SELECT \"id\", \(column) FROM \(table) WHERE instr(\(column), ?) > 0",
                                                 [.text("\"\(object.id)\"")])
                    for row in rows {
                        let ids = (try? JSONParser.parse(row[1].string ?? "[]"))?.arrayValue ?? []
                        let kept = JSONWriter.string(.array(ids.filter { $0 != .string(object.id) }))
                        try database.execute("UPDATE \(table) SET \(column) = ? WHERE \"id\" = ?", [.text(kept), row[0]])
                    }
                } else {
                    try database.execute("UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?", [.text(object.id)])
                }
            }
        }
    }

    /// Inside the save transaction: every id written names a row that exists after the writes, and no
    /// deleted row is still named by a relationship with `noAction`.
    private func checkReferences() throws {
        var touched = inserted + Array(updated.values)
        // Objects whose relationships point at deleted rows were updated by nullify; `noAction` leaves
        // rows in the store naming them, which is checked here.
        for object in deleted.values {
            for model in manifest.models {
                for rel in model.relationships where rel.target == object.modelName {
                    let table = SQL.quoteIdentifier(model.name), column = SQL.quoteIdentifier(rel.name)
                    let probe = rel.isToMany ? "instr(\(column), ?) > 0" : "\(column) = ?"
                    let needle: DatabaseValue = .text(rel.isToMany ? "\"\(object.id)\"" : object.id)
                    if let id = try database.scalar("SELECT \"id\" FROM \(table) WHERE \(probe) LIMIT 1", [needle])?.string {
                        throw ContextError.danglingReference(model: model.name, field: rel.name, id: object.id + " (still named by \(id))")
                    }
                }
            }
        }
        touched.removeAll { $0.state == .deleted }
        for object in touched {
            for (i, rel) in object.layout.relationships.enumerated() {
                guard let rel else { continue }
                let target = try layout(rel.target)
                for id in ids(in: object.values[i]) {
                    let exists = try database.cachedStatement("SELECT 1 FROM \(target.table) WHERE \"id\" = ?")
                    defer { exists.reset() }
                    try exists.bind([.text(id)])
                    if try !exists.step() {
                        throw ContextError.danglingReference(model: object.modelName, field: rel.name, id: id)
                    }
                }
            }
        }
    }
}
