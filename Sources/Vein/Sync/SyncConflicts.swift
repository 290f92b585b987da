/// A row a merge set aside because another row claimed one of its unique values first
/// (docs/sync.md#unique-values).
package struct SyncConflict: Equatable, Sendable {
    package let model: String
    package let id: String
    /// Its fields as the merge rules give them, in the table's column order.
    package let fields: [Field]
    /// The unique values it holds that rows of the store hold too, and those rows' ids.
    package let contested: [Field]
    package let holders: [String]

    package struct Field: Equatable, Sendable {
        package let name: String
        package let value: DatabaseValue
    }

    /// The conflict as `vein sync conflicts --json` shows it: its fields and to-ones in their JSON form
    /// (positions left out), the unique values contested, and the rows that hold them.
    package func json(manifest: SchemaManifest) -> JSONValue {
        let schema = manifest.model(named: model)
        func shown(_ field: Field) -> (String, JSONValue)? {
            if let declared = schema?.field(named: field.name) { return (field.name, declared.jsonValue(fromDatabase: field.value)) }
            if schema?.relationship(named: field.name) != nil { return (field.name, field.value.string.map(JSONValue.string) ?? .null) }
            return nil
        }
        return .object(JSONObject([
            ("model", .string(model)), ("id", .string(id)),
            ("contested", .object(JSONObject(contested.compactMap(shown)))),
            ("heldBy", .array(holders.map(JSONValue.string))),
            ("fields", .object(JSONObject(fields.compactMap(shown)))),
        ]))
    }
}

/// The unique-value conflicts of a replica, and their resolution. Nothing here reaches the relay: listing
/// reads the store, and a resolution is a commit of this replica that the next sync sends like any other,
/// so every replica resolves the same way.
package struct SyncConflicts {
    package let store: Store
    private var database: Database { store.database }

    package init(store: Store) throws {
        guard try SyncState.read(from: store.database) != nil else { throw SyncError.notSynced(store.path) }
        self.store = store
    }

    /// Every set-aside row, by model and id.
    package func list() throws -> [SyncConflict] {
        let shadow = SyncShadow(database: database)
        guard try shadow.exists() else { return [] }
        let merger = try SyncMerger(database: database, manifest: store.manifest, merging: false)
        var result: [SyncConflict] = []
        for table in LoggedTable.all(in: store.manifest) where merger.uniqueColumns[table.name] != nil {
            for key in try shadow.keys(in: table.name) {
                let cells = try shadow.cells(table.name, key: key)
                let fields = table.valueColumns.map { SyncConflict.Field(name: $0, value: cells[$0] ?? .null) }
                let holders = try merger.rivals(in: table.name, of: .text(key), values: cells)
                var named: Set<String> = []
                for columns in merger.uniqueColumns[table.name] ?? [] {
                    let one = Dictionary(uniqueKeysWithValues: columns.map { ($0, cells[$0] ?? .null) })
                    if try !merger.rivals(in: table.name, of: .text(key), values: one).isEmpty { named.formUnion(columns) }
                }
                result.append(SyncConflict(model: table.name, id: key, fields: fields,
                                           contested: fields.filter { named.contains($0.name) }, holders: holders.compactMap(\.string)))
            }
        }
        return result
    }

    /// The conflict of row `id`, or an error that says there is none.
    package func conflict(_ id: String) throws -> SyncConflict {
        guard let found = try list().first(where: { $0.id == id }) else { throw SyncError.noConflict(store.path, id: id) }
        return found
    }

    /// Keeps the row that holds the value (`--keep mine`): the set-aside row is deleted, as this
    /// replica's own commit, so every replica deletes it.
    package func discard(_ id: String) throws {
        let conflict = try conflict(id)
        guard let recorder = database.transactionObserver as? ChangeRecorder, let index = recorder.tableIndex(conflict.model),
              let table = LoggedTable.all(in: store.manifest).first(where: { $0.name == conflict.model }) else {
            throw SyncError.noChangeLog(store.path)
        }
        try store.transaction(.immediate) {
            _ = try self.conflict(id)  // still set aside, under the write lock
            // The log records the delete as a delete trigger would, with the values kept on deletion.
            let preserved = table.preservedColumns
            recorder.begin(.delete, table: index, id: id, count: preserved.count)
            for column in preserved {
                recorder.append(table: index, column: column, conflict.fields[column].value)
            }
            try SyncMerger(database: database, manifest: store.manifest).dropSetAside(conflict.model, id: .text(id))
        }
        try settle()
    }

    /// Brings back the rows whose values are free and sets aside the later claims of this replica's own
    /// commits, as a merge would; then what they left pointing at nothing is detached. Recorded in the
    /// log under no replica's id, so no replica sends it: each comes to it from the same commits.
    package func settle() throws {
        guard try !SyncShadow(database: database).isEmpty() else { return }
        let recorder = database.transactionObserver as? ChangeRecorder
        recorder?.merging = (SyncMerger.settlingReplica, 0)
        defer { recorder?.merging = nil }
        let merger = try SyncMerger(database: database, manifest: store.manifest)
        try store.transaction(.immediate) {
            guard var state = try SyncState.read(from: database) else { throw SyncError.notSynced(store.path) }
            try merger.stampOwn(&state)
            try state.write(to: database)
            try merger.settle()
            try merger.repair()
        }
    }
}
