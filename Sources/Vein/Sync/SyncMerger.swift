import CSQLCipher

/// Merges the committed changes of other replicas into this store, and stamps this store's own
/// (docs/sync.md#merging). Every rule is a function of the changes and their stamps, never of the order
/// they arrive in (beyond each replica's own order, and what a replica had seen when it wrote):
///
/// 1. A field takes the value of the write with the greatest stamp (clock time, then replica id).
/// 2. A row is inserted once; a row deleted on any replica stays deleted, and changes that reach it after
///    are dropped (a delete wins over a concurrent update: what its rules removed with it is gone too).
/// 3. A link (a to-many member) is present when its newest add is newer than its newest removal; its
///    position is a field. Members of equal position are ordered by id.
/// 4. A merged delete removes the rows its replica deleted (its cascades included); what else still
///    points at them (a member another replica added meanwhile) is detached, never deleted (`repair`).
/// 5. Of rows that hold one unique value, the one that claimed it first stays; the others are set aside
///    whole, and come back when the value is free (`SyncMerger+UniqueValues.swift`).
struct SyncMerger {
    let database: Database
    let manifest: SchemaManifest
    var stamps: SyncStamps { SyncStamps(database: database) }
    let shadow: SyncShadow
    let q = SQL.quoteIdentifier
    /// Each link table's canonical relationship, by table name.
    let linkStorages: [String: RelationshipStorage]
    /// Each model's unique column sets (a unique field alone, or a compound constraint), for the models
    /// that have any.
    let uniqueColumns: [String: [[String]]]
    /// Every relationship's storage, for moving rows aside and back.
    let storages: [RelationshipStorage]

    /// The replica a settling of set-aside rows is recorded under in the change log (`SyncSession.settle`):
    /// no replica's id, so no replica sends it.
    static let settlingReplica = "sync"

    /// The rows a merge found gone (deleted by it, or named by a merged write and not here), by model:
    /// what `repair` looks for references to, so its cost follows the merged changes, not the store's size.
    static let goneTable = "temp.\"_vein_sync_gone\""
    static let createGoneTable = #"CREATE TEMP TABLE IF NOT EXISTS "_vein_sync_gone" ("model" TEXT NOT NULL, "id" TEXT NOT NULL, "#
        + #"PRIMARY KEY ("model", "id")) WITHOUT ROWID"#

    /// `merging`: false for a merger that only reads (listing conflicts), which makes no tables.
    init(database: Database, manifest: SchemaManifest, merging: Bool = true) throws {
        self.database = database
        self.manifest = manifest
        shadow = SyncShadow(database: database)
        linkStorages = Dictionary(RelationshipStorage.all(in: manifest).compactMap { s in
            s.isCanonical ? s.linkTable.map { ($0, s) } : nil
        }, uniquingKeysWith: { a, _ in a })
        uniqueColumns = Dictionary(uniqueKeysWithValues: manifest.models.compactMap { model in
            let sets = model.fields.filter(\.isUnique).map { [$0.name] } + model.uniquenessConstraints
            return sets.isEmpty ? nil : (model.name, sets)
        })
        storages = RelationshipStorage.all(in: manifest)
        guard merging else { return }
        try database.execute(Self.createGoneTable)
        // A replica made before the shadow gets it at its next merge (a read-only look finds none).
        if try !shadow.exists() { try database.execute(SyncShadow.createTable) }
    }

    /// Notes that `model`'s row `id` is gone, for `repair`.
    func gone(_ model: String, _ id: DatabaseValue) throws {
        let statement = try database.cachedStatement(#"INSERT OR IGNORE INTO \#(Self.goneTable) ("model", "id") VALUES (?, ?)"#)
        defer { statement.reset() }
        try statement.bind([.text(model), id])
        try statement.step()
    }

    // MARK: This store's own changes

    /// Stamps the writes of one of this store's own transactions: what it inserted, changed, deleted and
    /// linked now holds its clock time, which a merged change must pass.
    func stamp(_ transaction: LoggedTransaction) throws {
        for part in transaction.parts {
            let values = Array(part.valueColumns)
            for change in part.changes {
                let stamp = SyncStamp(clock: transaction.clock + Int64(change.clockOffset), replica: transaction.replica)
                let key = SyncStamps.key(change.key)
                switch change.kind {
                case .insert, .delete: try stamps.set(stamp, table: part.tableName, key: key, column: "")
                case .insertContinued: break
                case .update:
                    for (column, _) in change.values {
                        try stamps.set(stamp, table: part.tableName, key: key, column: values[column])
                        // A reference to a set-aside row that this newer write replaces.
                        try shadow.remove(part.tableName, key: key, column: values[column])
                    }
                }
            }
        }
    }

    /// Stamps this store's own commits since the last stamped, in the caller's transaction, so a merged
    /// change must pass them.
    func stampOwn(_ state: inout SyncState) throws {
        var reader = ChangeLogReader()
        reader.afterToken = state.stampedThrough
        reader.replica = try ChangeLogSchema.replica(in: database) ?? ""
        for transaction in try reader.transactions(in: database) where transaction.kind == .changes {
            try stamp(transaction)
        }
        // Past the merged commits too: they are read again by no one.
        state.stampedThrough = max(state.stampedThrough, try ChangeLogSchema.newestCommit(in: database).token)
    }

    // MARK: Another replica's changes

    /// Merges one transaction of another replica; returns whether something it did may have left a
    /// reference to a deleted row (a delete, or a write naming a row that is gone), for `repair`, and
    /// notes those rows.
    func merge(_ transaction: LoggedTransaction) throws -> Bool {
        var needsRepair = false
        for part in transaction.parts {
            for change in Self.joined(part.changes) {
                let stamp = SyncStamp(clock: transaction.clock + Int64(change.clockOffset), replica: transaction.replica)
                if part.isLinkTable {
                    needsRepair = try mergeLink(change, of: part, stamp: stamp) || needsRepair
                } else {
                    needsRepair = try mergeRow(change, of: part, stamp: stamp) || needsRepair
                }
            }
        }
        return needsRepair
    }

    /// An insert and the columns that continue it, as one change.
    static func joined(_ changes: [LoggedChange]) -> [LoggedChange] {
        var result: [LoggedChange] = []
        for change in changes {
            if change.kind == .insertContinued, let last = result.last, last.kind == .insert, last.key == change.key {
                result[result.count - 1].values += change.values
            } else {
                result.append(change)
            }
        }
        return result
    }

    func exists(_ table: String, id: DatabaseValue) throws -> Bool {
        try database.scalar("SELECT 1 FROM \(q(table)) WHERE \(StoreFormat.key) = ?", [id]) != nil
    }

    private func mergeRow(_ change: LoggedChange, of part: LoggedPart, stamp: SyncStamp) throws -> Bool {
        guard let id = change.key.first else { return false }
        let key = SyncStamps.key(change.key), table = part.tableName
        let columns = Array(part.valueColumns)
        let current = try stamps.stamps(table: table, key: key)
        let present = try exists(table, id: id)
        let setAside = try !present && shadow.holds(table, key: key)
        switch change.kind {
        case .insert, .insertContinued:
            if !present && !setAside {
                // A row whose stamp outlived it was deleted: it is not brought back.
                guard current[""] == nil else { return false }
                try stamps.set(stamp, table: table, key: key, column: "")
                let cells = Dictionary(change.values.map { (columns[$0.column], $0.value) }, uniquingKeysWith: { $1 })
                if try !makeRoom(for: table, id: id, values: cells, claim: stamp) {
                    try setAsideNew(table, key: key, cells: cells)
                    return false
                }
                let names = [StoreFormat.current.keyColumn] + change.values.map { columns[$0.column] }
                try write("INSERT INTO \(q(table)) (\(names.map(q).joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count)))",
                          [id] + change.values.map(\.value), replica: stamp.replica)
                return try namesMissingRow(change, columns: columns, model: table)
            }
            return try mergeFields(change, columns: columns, table: table, key: key, current: current, stamp: stamp, setAside: setAside)
        case .update:
            guard present || setAside else { return false }
            return try mergeFields(change, columns: columns, table: table, key: key, current: current, stamp: stamp, setAside: setAside)
        case .delete:
            if present { try database.execute("DELETE FROM \(q(table)) WHERE \(StoreFormat.key) = ?", [id]) }
            if setAside { try dropSetAside(table, id: id) }
            try stamps.set(max(stamp, current[""] ?? .none), table: table, key: key, column: "")
            try gone(table, id)
            return true
        }
    }

    /// The fields of `change` whose stamps it passes; returns whether one of them names a row that is gone.
    private func mergeFields(_ change: LoggedChange, columns: [String], table: String, key: String,
                             current: [String: SyncStamp], stamp: SyncStamp, setAside isSetAside: Bool) throws -> Bool {
        let winning = change.values.filter { stamp >= SyncStamps.field(columns[$0.column], in: current) }
        guard !winning.isEmpty else { return false }
        for (column, _) in winning { try stamps.set(stamp, table: table, key: key, column: columns[column]) }
        let id = change.key[0]
        if isSetAside {
            for (column, value) in winning { try shadow.set(table, key: key, column: columns[column], value) }
            return false
        }
        for (column, _) in winning { try shadow.remove(table, key: key, column: columns[column]) }
        if let unique = uniqueColumns[table], winning.contains(where: { w in unique.contains { $0.contains(columns[w.column]) } }) {
            var cells = try liveCells(table, id: id, columns: Set(unique.joined()))
            for (column, value) in winning { cells[columns[column]] = value }
            if try !makeRoom(for: table, id: id, values: cells, claim: claim(table, key: key)) {
                // It loses its value to an earlier claim: set aside, with what this write changed.
                try setAside(table, id: id)
                for (column, value) in winning { try shadow.set(table, key: key, column: columns[column], value) }
                return false
            }
        }
        let sets = winning.map { "\(q(columns[$0.column])) = ?" }.joined(separator: ", ")
        try write("UPDATE \(q(table)) SET \(sets) WHERE \(StoreFormat.key) = ?", winning.map(\.value) + [id], replica: stamp.replica)
        return try namesMissingRow(LoggedChange(kind: change.kind, clockOffset: 0, key: change.key, values: winning), columns: columns, model: table)
    }

    /// Whether a written to-one names a row that is not there (deleted on another replica meanwhile),
    /// noted as gone. One naming a set-aside row reads NULL, and the reference waits in the shadow.
    private func namesMissingRow(_ change: LoggedChange, columns: [String], model: String) throws -> Bool {
        guard let schema = manifest.model(named: model) else { return false }
        var missing = false
        for (column, value) in change.values where value != .null {
            if let rel = schema.relationship(named: columns[column]), !rel.isToMany, try !exists(rel.target, id: value) {
                if try shadow.holds(rel.target, key: SyncStamps.key([value])) {
                    try hideReference(model, key: SyncStamps.key(change.key), id: change.key[0], column: columns[column], to: value)
                } else {
                    try gone(rel.target, value)
                    missing = true
                }
            }
        }
        return missing
    }

    private func mergeLink(_ change: LoggedChange, of part: LoggedPart, stamp: SyncStamp) throws -> Bool {
        guard change.key.count == 2, let storage = linkStorages[part.tableName] else { return false }
        let key = SyncStamps.key(change.key), table = part.tableName
        let current = try stamps.stamps(table: table, key: key)
        let keyMatch = #""owner" = ? AND "target" = ?"#
        switch change.kind {
        case .insert, .insertContinued:
            guard stamp >= current[""] ?? .none else { return false }
            try stamps.set(stamp, table: table, key: key, column: "")
            let position = change.values.first { part.valueColumns[part.keyCount + $0.column] == "position" }?.value ?? .integer(0)
            if try shadow.holds(storage.model, key: SyncStamps.key([change.key[0]])) || shadow.holds(storage.target, key: SyncStamps.key([change.key[1]])) {
                // An end is set aside: so is the link, until it comes back.
                try shadow.set(table, key: key, column: "", .integer(1))
                try shadow.set(table, key: key, column: "position", position)
                return false
            }
            try write("INSERT OR REPLACE INTO \(q(table)) (\"owner\", \"target\", \"position\") VALUES (?, ?, ?)", change.key + [position],
                      replica: stamp.replica)
            // A link to a row that is gone is made, then `repair` takes it away, as it would have had the link
            // come first.
            var missing = false
            if try !exists(storage.model, id: change.key[0]) { try gone(storage.model, change.key[0]); missing = true }
            if try !exists(storage.target, id: change.key[1]) { try gone(storage.target, change.key[1]); missing = true }
            return missing
        case .delete:
            guard stamp >= current[""] ?? .none else { return false }
            try stamps.set(stamp, table: table, key: key, column: "")
            try database.execute("DELETE FROM \(q(table)) WHERE \(keyMatch)", change.key)
            try shadow.removeAll(table, key: key)
        case .update:
            let winning = change.values.filter { stamp >= SyncStamps.field("position", in: current) && part.valueColumns[part.keyCount + $0.column] == "position" }
            guard let position = winning.first?.value else { return false }
            if try shadow.holds(table, key: key) {
                try shadow.set(table, key: key, column: "position", position)
                try stamps.set(stamp, table: table, key: key, column: "position")
                return false
            }
            try database.execute("UPDATE \(q(table)) SET \"position\" = ? WHERE \(keyMatch)", [position] + change.key)
            try stamps.set(stamp, table: table, key: key, column: "position")
        }
        return false
    }

    /// Runs a merged write; a constraint the rules do not settle stops the merge with a message that says so.
    func write(_ sql: String, _ arguments: [DatabaseValue], replica: String) throws {
        do { try database.execute(sql, arguments) } catch let error as DatabaseError where error.code == SQLITE_CONSTRAINT {
            throw SyncError.cannotMerge(replica: replica, reason: error.message)
        }
    }

    // MARK: What merged deletes leave behind

    /// Clears what merged deletes left pointing at nothing: a to-one naming a row that is gone is set to
    /// NULL, a link with an end that is gone is removed. Never more (`noAction` leaves the reference, as a
    /// local delete does): a row is deleted only by a replica that deleted it, so a member another replica
    /// added to a list while the list's owner was deleted is kept, detached, rather than deleted by a
    /// delete its replica never saw (docs/sync.md#deletes). Every delete is final, so what this clears
    /// stays cleared, whatever arrives after.
    ///
    /// Only references to the rows the merge noted as gone are looked at, each through the referencing
    /// column's index or the link table's key and index: its cost follows the merged changes, never the
    /// store's size (`SyncSessionTests.repairReachesReferencesThroughIndexes` checks the plans).
    ///
    /// Most segments delete nothing: their repair is one look at the empty table, not a statement per
    /// relationship, and the statements are prepared once per connection, not once per segment.
    func repair() throws {
        let anyGone = try database.cachedStatement("SELECT 1 FROM \(Self.goneTable) LIMIT 1")
        defer { anyGone.reset() }
        guard try anyGone.step() else { return }
        anyGone.reset()
        for sql in repairStatements + ["DELETE FROM \(Self.goneTable)"] {
            try database.cachedStatement(sql).execute()
        }
    }

    /// What `repair` runs: per relationship, its references to gone rows cleared (a row of the model
    /// may still be there: a reference to it stays).
    var repairStatements: [String] {
        func goneIDs(_ model: String) -> String { "(SELECT \"id\" FROM \(Self.goneTable) WHERE \"model\" = \(SQL.quoteString(model)))" }
        func missing(_ model: String, _ reference: String) -> String {
            "NOT EXISTS (SELECT 1 FROM \(q(model)) AS \"_t\" WHERE \"_t\".\(StoreFormat.key) = \(reference))"
        }
        return RelationshipStorage.all(in: manifest).flatMap { storage -> [String] in
            switch storage.kind {
            case .column:
                guard Self.referenceRule(storage, in: manifest) != .noAction else { return [] }
                let column = "\(q(storage.model)).\(q(storage.name))"
                return ["UPDATE \(q(storage.model)) SET \(q(storage.name)) = NULL WHERE \(column) IN \(goneIDs(storage.target)) "
                        + "AND \(missing(storage.target, column))"]
            case .linkTable:
                guard storage.isCanonical, let link = storage.linkTable else { return [] }
                return [("owner", storage.model), ("target", storage.target)].map { end, model in
                    "DELETE FROM \(q(link)) WHERE \(q(link)).\"\(end)\" IN \(goneIDs(model)) AND \(missing(model, "\(q(link)).\"\(end)\""))"
                }
            case .reverseColumn:
                return []  // its inverse's column
            }
        }
    }

    /// The delete rule that governs a reference held by `storage`: its inverse's (the deleted side's), or
    /// `nullify` for a one-way relationship.
    static func referenceRule(_ storage: RelationshipStorage, in manifest: SchemaManifest) -> DeleteRule {
        storage.relationship.inverse.flatMap { manifest.model(named: storage.target)?.relationship(named: $0)?.deleteRule } ?? .nullify
    }
}
