/// Work that must see one state of a store, and the check that the store still holds the schema it was
/// opened with.
///
/// Why the check: a process holds the schema it read at open (its tables, columns, manifest) for as long
/// as it runs. When another process migrates the store meanwhile, statements built from that schema meet
/// SQLite's "no such table" or, worse, write rows of the old shape into the new tables. Checked as the
/// first read of a transaction, it holds for the whole transaction: a migration takes the write lock, and a
/// read snapshot or a write lock keeps its commit out until the transaction ends.
extension StoreMeta {
    /// Throws `StoreError.schemaChanged` when `database`'s `_vein_meta` no longer names this schema (by the
    /// manifest's checksum, which every migration changes). `name` is an attached database's name.
    func requireSchemaUnchanged(in database: Database, name: String = "main", path: String) throws {
        var now: [String: String] = [:]
        let sql = "SELECT \"key\", \"value\" FROM \(SQL.quoteIdentifier(name)).\"_vein_meta\" WHERE \"key\" IN ('schemaVersion', 'manifestSHA256')"
        for row in try database.rows(sql) {
            if let key = row[0].string, let value = row[1].string { now[key] = value }
        }
        guard now["manifestSHA256"] == manifestSHA256 else {
            throw StoreError.schemaChanged(path, from: schemaVersion, to: now["schemaVersion"] ?? "none")
        }
    }
}

extension Store {
    /// Runs `body` in one transaction, after checking that the store still holds the schema it was opened
    /// with: `.deferred` reads one snapshot (in WAL mode writers go on meanwhile), `.immediate` takes the
    /// write lock first, so nothing the body reads can change before it writes. Nested, it is a savepoint.
    public func transaction<T>(_ kind: Database.TransactionKind, _ body: () throws -> T) throws -> T {
        try database.transaction(kind) {
            try meta.requireSchemaUnchanged(in: database, path: path)
            return try body()
        }
    }
}
