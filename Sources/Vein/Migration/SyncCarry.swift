import CSQLCipher

/// Moves a migrated replica onto the sync's migration barrier (docs/sync.md#migrations), in the caller's
/// write transaction: the store's rows become the barrier's snapshot, and what this replica's own commits
/// since the barrier's cover changed is written again on top, as one commit of its own at the new schema
/// version that the next push sends.
///
/// A commit made at an older version names old tables and fields: each stage of the plan takes it
/// forward (a renamed field's change to the new name; a change of a field a `map` reads to the field it
/// computes; a change of a dropped model or field to nothing, as the plan said). What is written again
/// is the row as this store's own migration made it, limited to those fields: a field this replica never
/// changed keeps the barrier's value, or what another replica wrote at the new version since.
struct SyncCarry {
    let database: Database
    /// The schema the store and the barrier are at.
    let manifest: SchemaManifest
    /// The plan that migrated the store: what leads each commit's version to `manifest`'s.
    let plan: MigrationPlan
    /// The attached database holding the barrier's snapshot.
    static let barrierSchema = "vein_barrier"
    private let q = SQL.quoteIdentifier

    /// What a commit did to one row or link: wrote it whole (inserted or deleted it), or changed these columns.
    enum Touch {
        case whole
        case columns(Set<String>)

        func union(_ other: Touch) -> Touch {
            if case .columns(let a) = self, case .columns(let b) = other { return .columns(a.union(b)) }
            return .whole
        }
    }

    /// What the commits touched, by table of the new schema, then row or link key (`SyncStamps.key`).
    typealias Touched = [String: [String: (key: [DatabaseValue], touch: Touch)]]

    /// The rows and links `transactions` touched, named as the new schema names them.
    func touched(by transactions: [LoggedTransaction]) throws -> Touched {
        var result: Touched = [:]
        let plans = try stagePlans()
        for transaction in transactions where transaction.kind == .changes {
            let stages = try stages(from: transaction.schemaVersion, plans: plans)
            for part in transaction.parts {
                let columns = Array(part.valueColumns)
                for change in part.changes {
                    var table = part.tableName, key = change.key
                    var touch: Touch = change.kind == .update ? .columns(Set(change.values.map { columns[$0.column] })) : .whole
                    var carried = true
                    for plan in stages {
                        guard let next = Self.forward(table: table, key: key, touch: touch, through: plan) else { carried = false; break }
                        (table, key, touch) = next
                    }
                    guard carried else { continue }
                    let name = SyncStamps.key(key)
                    let before = result[table]?[name]?.touch
                    result[table, default: [:]][name] = (key, before.map { $0.union(touch) } ?? touch)
                }
            }
        }
        return result
    }

    /// Every stage's plan, by the version it starts from.
    private func stagePlans() throws -> [String: (to: String, plan: StagePlan)] {
        var plans: [String: (to: String, plan: StagePlan)] = [:]
        for stage in plan.stages {
            guard case .success(let made) = StagePlanner.plan(stage) else { continue }  // the migration that ran it checked it
            plans[stage.from.version.description] = (stage.to.version.description, made)
        }
        return plans
    }

    /// The stage plans that lead `version` to the store's.
    private func stages(from version: String, plans: [String: (to: String, plan: StagePlan)]) throws -> [StagePlan] {
        var result: [StagePlan] = [], at = version
        let target = manifest.version.description
        while at != target {
            guard let next = plans[at], result.count < plan.stages.count else {
                throw SyncError.migrationDiffers(database.path, migration: 0, version: target,
                                                 theirs: "\(version) (commits of this replica made at \(version), which the plan does not lead from)")
            }
            result.append(next.plan)
            at = next.to
        }
        return result
    }

    /// One table's row or link, and what was done to it, through one stage; nil when the stage drops it.
    static func forward(table: String, key: [DatabaseValue], touch: Touch, through plan: StagePlan) -> (String, [DatabaseValue], Touch)? {
        if table.hasPrefix(RelationshipStorage.linkTablePrefix) {
            guard let (new, old) = plan.links.first(where: { $0.old?.linkTable == table }), let old, key.count == 2 else { return nil }
            // The old table's columns hold owner and member as the old side sees them.
            return (new.linkTable!, old.isCanonical ? key : [key[1], key[0]], .whole)
        }
        guard let model = plan.models.first(where: { $0.source?.name == table }) else { return nil }
        switch touch {
        case .whole: return (model.model.name, key, .whole)
        case .columns(let changed):
            let columns = model.columns.filter { column in
                switch column.source {
                case .old(let name), .oldAsReal(let name): return changed.contains(name)
                case .mapped: return !column.reads.isDisjoint(with: changed)
                case .constant, .missing: return false
                }
            }.map(\.name)
            return columns.isEmpty ? nil : (model.model.name, key, .columns(Set(columns)))
        }
    }

    // MARK: Writing

    /// Keeps the touched rows and links as this store has them, replaces every table's rows with the
    /// barrier's, and writes the touched ones again. Returns how many rows and links it wrote.
    func carry(_ touched: Touched, merger: SyncMerger) throws -> Int {
        let tables = manifest.models.map(\.name) + RelationshipStorage.all(in: manifest).compactMap { $0.isCanonical ? $0.linkTable : nil }
        var kept: [String: String] = [:]
        for table in tables.sorted() where !(touched[table]?.isEmpty ?? true) {
            kept[table] = try keep(table, keys: touched[table]!.values.map(\.key))
        }
        try database.withTriggersOff {
            for table in tables {
                let columns = try self.columns(of: table).map(q).joined(separator: ", ")
                try database.execute("DELETE FROM main.\(q(table))")
                try database.execute("INSERT INTO main.\(q(table)) (\(columns)) SELECT \(columns) FROM \(q(Self.barrierSchema)).\(q(table))")
            }
            try database.execute("DELETE FROM \(q(SyncState.stamps))")
        }
        var written = 0
        // Rows before links, so a carried link finds its ends.
        for table in tables where kept[table] != nil {
            written += try writeAgain(table, from: kept[table]!, touched: touched[table]!, merger: merger)
        }
        for table in kept.values { try database.execute("DROP TABLE temp.\(q(table))") }
        return written
    }

    /// A temporary copy of `table`'s rows under `keys`, as this store has them now.
    private func keep(_ table: String, keys: [[DatabaseValue]]) throws -> String {
        let copy = "_vein_carry_" + table
        try database.execute("DROP TABLE IF EXISTS temp.\(q(copy))")
        try database.execute("CREATE TEMP TABLE \(q(copy)) AS SELECT * FROM main.\(q(table)) WHERE 0")
        // Each touched row is looked up by its key once: through an index, or the lookups would cost the
        // square of the rows carried.
        let keyNames = try keyColumns(of: table)
        try database.execute("CREATE UNIQUE INDEX temp.\(q(copy + "_key")) ON \(q(copy)) (\(keyNames.map(q).joined(separator: ", ")))")
        let match = keyNames.map { "\(q($0)) = ?" }.joined(separator: " AND ")
        let statement = try database.makeStatement("INSERT INTO temp.\(q(copy)) SELECT * FROM main.\(q(table)) WHERE \(match)")
        for key in keys {
            defer { statement.reset() }
            try statement.bind(key)
            _ = try statement.step()
        }
        return copy
    }

    /// Writes `table`'s touched rows as `copy` holds them: inserted where the barrier lacks them, their
    /// touched columns updated where it has them, deleted where this store no longer had them.
    private func writeAgain(_ table: String, from copy: String, touched: [String: (key: [DatabaseValue], touch: Touch)], merger: SyncMerger) throws -> Int {
        let keyColumns = try self.keyColumns(of: table), all = try columns(of: table)
        let values = all.filter { !keyColumns.contains($0) }
        let match = keyColumns.map { "\(q($0)) = ?" }.joined(separator: " AND ")
        let isLink = table.hasPrefix(RelationshipStorage.linkTablePrefix)
        var written = 0
        for name in touched.keys.sorted() {
            let (key, touch) = touched[name]!
            let mine = try database.rows("SELECT \(all.map(q).joined(separator: ", ")) FROM temp.\(q(copy)) WHERE \(match)", key).first
            let present = try database.scalar("SELECT 1 FROM main.\(q(table)) WHERE \(match)", key) != nil
            do {
                switch (mine, present) {
                case (nil, true):
                    try database.execute("DELETE FROM main.\(q(table)) WHERE \(match)", key)
                    if !isLink { try merger.gone(table, key[0]) }
                case (let row?, false):
                    if isLink, try !endsExist(table, key) { continue }
                    try database.execute("INSERT INTO main.\(q(table)) (\(all.map(q).joined(separator: ", "))) VALUES (\(SQL.placeholders(all.count)))", row)
                    try noteReferences(of: table, row: row, columns: all, merger: merger)
                case (let row?, true):
                    let changed: [String]
                    switch touch {
                    case .whole: changed = values
                    case .columns(let set): changed = values.filter(set.contains)
                    }
                    guard !changed.isEmpty else { continue }
                    let cells = changed.map { row[all.firstIndex(of: $0)!] }
                    try database.execute("UPDATE main.\(q(table)) SET \(changed.map { "\(q($0)) = ?" }.joined(separator: ", ")) WHERE \(match)", cells + key)
                    try noteReferences(of: table, row: row, columns: all, merger: merger)
                case (nil, false):
                    continue
                }
            } catch let error as DatabaseError where error.code == SQLITE_CONSTRAINT {
                throw SyncError.cannotMerge(replica: try ChangeLogSchema.replica(in: database) ?? "",
                                            reason: "its own change of \(table) \(name) made before the migration, written again at "
                                                + "\(manifest.version): \(error.message)")
            }
            written += 1
        }
        return written
    }

    /// Whether both rows a link joins are in the store (a carried link to a row another replica deleted is not written).
    private func endsExist(_ table: String, _ key: [DatabaseValue]) throws -> Bool {
        guard let storage = RelationshipStorage.all(in: manifest).first(where: { $0.isCanonical && $0.linkTable == table }) else { return false }
        for (model, id) in [(storage.model, key[0]), (storage.target, key[1])]
        where try database.scalar("SELECT 1 FROM \(q(model)) WHERE \(StoreFormat.key) = ?", [id]) == nil {
            return false
        }
        return true
    }

    /// The rows a written row's to-ones name, for the merger's repair to clear the ones that are gone.
    private func noteReferences(of table: String, row: [DatabaseValue], columns: [String], merger: SyncMerger) throws {
        for storage in RelationshipStorage.all(in: manifest) where storage.model == table && storage.kind == .column {
            guard let index = columns.firstIndex(of: storage.name), row[index] != .null else { continue }
            try merger.gone(storage.target, row[index])
        }
    }

    private func columns(of table: String) throws -> [String] {
        try database.rows("PRAGMA main.table_info(\(q(table)))").compactMap { $0[1].string }
    }

    private func keyColumns(of table: String) throws -> [String] {
        table.hasPrefix(RelationshipStorage.linkTablePrefix) ? ["owner", "target"] : [StoreFormat.current.keyColumn]
    }
}
