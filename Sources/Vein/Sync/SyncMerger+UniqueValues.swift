/// Unique values claimed on two replicas (docs/sync.md#unique-values). A row's **claim** on its unique
/// values is the stamp of the newest write among its unique columns (then its id, so two claims never
/// tie). Of rows that would hold one value, the earliest claim stays in the store; the others are **set
/// aside** whole in the shadow (`SyncShadow`): their fields, their links, and the to-ones that named them.
/// Merged writes keep reaching a set-aside row there, and it comes back when no earlier claim holds its
/// values.
///
/// Why this converges: a row stays exactly when no row with an earlier claim that stays shares a value
/// with it. Taking rows in claim order, that decides each row from the rows before it, so one set of rows
/// stays whatever order the writes arrived in. A merge moves toward it as it writes (`makeRoom`), and
/// `settle` finishes it: each row it brings back is earlier than every row it sets aside.
extension SyncMerger {
    /// A row's claim, as claims are ordered.
    struct Claim: Comparable {
        let stamp: SyncStamp
        let id: String
        static func < (a: Claim, b: Claim) -> Bool { (a.stamp, a.id) < (b.stamp, b.id) }
    }

    func claim(_ table: String, key: String) throws -> Claim {
        let current = try stamps.stamps(table: table, key: key)
        let columns = Set((uniqueColumns[table] ?? []).joined())
        let stamp = columns.map { SyncStamps.field($0, in: current) }.max() ?? SyncStamps.field("", in: current)
        return Claim(stamp: stamp, id: key)
    }

    /// The rows in the store, other than `id`, that hold a unique value `values` would take.
    func rivals(in table: String, of id: DatabaseValue, values: [String: DatabaseValue]) throws -> [DatabaseValue] {
        var found: [DatabaseValue] = []
        for columns in uniqueColumns[table] ?? [] {
            let cells = columns.map { values[$0] ?? .null }
            guard !cells.contains(.null) else { continue }  // NULL never collides
            let match = columns.map { "\(q($0)) = ?" }.joined(separator: " AND ")
            for row in try database.rows("SELECT \(StoreFormat.key) FROM \(q(table)) WHERE \(match) AND \(StoreFormat.key) <> ?", cells + [id])
            where !found.contains(row[0]) {
                found.append(row[0])
            }
        }
        return found
    }

    /// Makes room in the store for row `id` of `table` holding `values` with `claim`: when every row that
    /// holds one of its unique values claimed it later, those rows are set aside and true returned; when
    /// one claimed it earlier, nothing changes and false is returned (the row itself is to be set aside).
    func makeRoom(for table: String, id: DatabaseValue, values: [String: DatabaseValue], claim stamp: SyncStamp) throws -> Bool {
        try makeRoom(for: table, id: id, values: values, claim: Claim(stamp: stamp, id: SyncStamps.key([id])))
    }

    func makeRoom(for table: String, id: DatabaseValue, values: [String: DatabaseValue], claim: Claim) throws -> Bool {
        guard uniqueColumns[table] != nil else { return true }
        let rivals = try rivals(in: table, of: id, values: values)
        for rival in rivals where try self.claim(table, key: SyncStamps.key([rival])) < claim { return false }
        for rival in rivals { try setAside(table, id: rival) }
        return true
    }

    /// The named columns of a row in the store.
    func liveCells(_ table: String, id: DatabaseValue, columns: Set<String>) throws -> [String: DatabaseValue] {
        let names = columns.sorted()
        guard let row = try database.rows("SELECT \(names.map(q).joined(separator: ", ")) FROM \(q(table)) WHERE \(StoreFormat.key) = ?", [id]).first else {
            return [:]
        }
        return Dictionary(uniqueKeysWithValues: zip(names, row))
    }

    private func valueColumns(of table: String) -> [String] {
        LoggedTable.all(in: manifest).first { $0.name == table }.map { Array($0.valueColumns) } ?? []
    }

    // MARK: Setting aside

    /// A merged insert that loses its values to an earlier claim: kept whole in the shadow.
    func setAsideNew(_ table: String, key: String, cells: [String: DatabaseValue]) throws {
        try shadow.set(table, key: key, column: "", .integer(1))
        for (column, value) in cells { try shadow.set(table, key: key, column: column, value) }
    }

    /// Moves a row of the store into the shadow, whole: its cells, its links, and the to-ones of other
    /// rows that name it (which read NULL meanwhile).
    func setAside(_ table: String, id: DatabaseValue) throws {
        let key = SyncStamps.key([id])
        let columns = valueColumns(of: table)
        try setAsideNew(table, key: key, cells: liveCells(table, id: id, columns: Set(columns)))
        for storage in storages {
            switch storage.kind {
            case .column where storage.target == table:
                for row in try database.rows("SELECT \(StoreFormat.key) FROM \(q(storage.model)) WHERE \(q(storage.name)) = ?", [id]) {
                    try hideReference(storage.model, key: SyncStamps.key([row[0]]), id: row[0], column: storage.name, to: id)
                }
            case .linkTable:
                guard storage.isCanonical, let link = storage.linkTable else { continue }
                for end in ["owner", "target"] where (end == "owner" ? storage.model : storage.target) == table {
                    for row in try database.rows("SELECT \"owner\", \"target\", \"position\" FROM \(q(link)) WHERE \"\(end)\" = ?", [id]) {
                        let linkKey = SyncStamps.key([row[0], row[1]])
                        try shadow.set(link, key: linkKey, column: "", .integer(1))
                        try shadow.set(link, key: linkKey, column: "position", row[2])
                        try database.execute("DELETE FROM \(q(link)) WHERE \"owner\" = ? AND \"target\" = ?", [row[0], row[1]])
                    }
                }
            default:
                continue
            }
        }
        try database.execute("DELETE FROM \(q(table)) WHERE \(StoreFormat.key) = ?", [id])
    }

    /// A to-one of a row in the store that names a set-aside row: NULL in the store, its value in the shadow.
    func hideReference(_ table: String, key: String, id: DatabaseValue, column: String, to target: DatabaseValue) throws {
        try shadow.set(table, key: key, column: column, target)
        try database.execute("UPDATE \(q(table)) SET \(q(column)) = NULL WHERE \(StoreFormat.key) = ?", [id])
    }

    /// A set-aside row deleted: its cells go, and `settle` returns what named it to the store, where the
    /// merge's repair detaches it as it would for any deleted row.
    func dropSetAside(_ table: String, id: DatabaseValue) throws {
        try shadow.removeAll(table, key: SyncStamps.key([id]))
    }

    // MARK: Bringing back

    /// Brings back every set-aside row no earlier claim keeps out, earliest claim first, setting aside the
    /// later claims it displaces; until none can come back.
    func settle() throws {
        try returnOrphans()
        var moved = true
        while moved {
            moved = false
            for table in try shadow.tables() where uniqueColumns[table] != nil {
                let claims = try shadow.keys(in: table).map { try claim(table, key: $0) }.sorted()
                for claim in claims {
                    let id = DatabaseValue.text(claim.id)
                    let cells = try shadow.cells(table, key: claim.id)
                    if try makeRoom(for: table, id: id, values: cells, claim: claim) {
                        try bringBack(table, id: id, cells: cells, claimedBy: claim.stamp.replica)
                        moved = true
                        break
                    }
                }
                if moved { break }
            }
        }
    }

    /// Writes a set-aside row into the store again; its links and the references to it follow.
    private func bringBack(_ table: String, id: DatabaseValue, cells: [String: DatabaseValue], claimedBy replica: String) throws {
        let key = SyncStamps.key([id])
        let schema = manifest.model(named: table)
        var values: [(String, DatabaseValue)] = []
        var hidden: [(String, DatabaseValue)] = []
        for (column, value) in cells.sorted(by: { $0.key < $1.key }) where !column.isEmpty {
            if value != .null, let rel = schema?.relationship(named: column), !rel.isToMany, try !exists(rel.target, id: value) {
                if try shadow.holds(rel.target, key: SyncStamps.key([value])) {
                    hidden.append((column, value))
                    values.append((column, .null))
                    continue
                }
                try gone(rel.target, value)  // deleted meanwhile: repair detaches it as the rules say
            }
            values.append((column, value))
        }
        try shadow.removeAll(table, key: key)
        let names = [StoreFormat.current.keyColumn] + values.map(\.0)
        try write("INSERT INTO \(q(table)) (\(names.map(q).joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count)))",
                  [id] + values.map(\.1), replica: replica)
        for (column, value) in hidden { try shadow.set(table, key: key, column: column, value) }
        try returnOrphans()
    }

    /// Returns to the store the references and links of the shadow whose ends are no longer set aside
    /// (brought back, or deleted: then noted gone, for repair).
    private func returnOrphans() throws {
        func isSetAside(_ table: String, _ id: DatabaseValue) throws -> Bool { try shadow.holds(table, key: SyncStamps.key([id])) }
        for storage in storages {
            switch storage.kind {
            case .column:
                for (holder, target) in try shadow.entries(in: storage.model, column: storage.name) where target != .null {
                    guard try !shadow.holds(storage.model, key: holder), try !isSetAside(storage.target, target) else { continue }
                    try shadow.remove(storage.model, key: holder, column: storage.name)
                    try database.execute("UPDATE \(q(storage.model)) SET \(q(storage.name)) = ? WHERE \(StoreFormat.key) = ?", [target, .text(holder)])
                    if try !exists(storage.target, id: target) { try gone(storage.target, target) }
                }
            case .linkTable:
                guard storage.isCanonical, let link = storage.linkTable else { continue }
                for linkKey in try shadow.keys(in: link) {
                    let ends = linkKey.split(separator: "\u{1F}", omittingEmptySubsequences: false).map { DatabaseValue.text(String($0)) }
                    guard ends.count == 2, try !isSetAside(storage.model, ends[0]), try !isSetAside(storage.target, ends[1]) else { continue }
                    let position = try shadow.value(link, key: linkKey, column: "position") ?? .integer(0)
                    try shadow.removeAll(link, key: linkKey)
                    try database.execute("INSERT OR REPLACE INTO \(q(link)) (\"owner\", \"target\", \"position\") VALUES (?, ?, ?)", ends + [position])
                    if try !exists(storage.model, id: ends[0]) { try gone(storage.model, ends[0]) }
                    if try !exists(storage.target, id: ends[1]) { try gone(storage.target, ends[1]) }
                }
            case .reverseColumn:
                continue
            }
        }
    }
}
