import Foundation

/// `vein upgrade`: converts a store of the format before (`StoreFormat.upgradable`) to the current one in
/// place. SQLite 3.15 cannot rename a column, so each model table is made again under a temporary name,
/// filled column for column (the layouts differ only in the key column's name), dropped, and the new
/// table renamed into its place, with its indexes made again; link tables keep their layout. All of it is
/// one transaction: a crash leaves the store whole, in the old format or the new one.
public enum StoreUpgrade {
    public struct Result: Equatable, Sendable {
        /// The format the store was in; equal to `to` when there was nothing to do.
        public let from: Int
        public let to: Int
        public let models: Int
        public let rows: Int
    }

    /// `beforeCommit` (tests) runs inside the transaction once every change is made.
    public static func upgrade(_ path: String, keys: KeyOptions, beforeCommit: (() throws -> Void)? = nil) throws -> Result {
        let store = try Store.open(path, keys: keys, mode: .readWrite, upgrading: true)
        defer { try? store.database.close() }
        let current = StoreFormat.current
        guard store.format != current else { return Result(from: current.version, to: current.version, models: 0, rows: 0) }
        let old = store.format, manifest = store.manifest, database = store.database
        let q = SQL.quoteIdentifier
        var rows = 0
        let upgraded = try database.transaction(.immediate) { () throws -> Bool in
            // Another vein may have upgraded it between the open and the lock.
            let found = try database.scalar("SELECT \"value\" FROM \"_vein_meta\" WHERE \"key\" = 'formatVersion'")?.string
            guard found == String(old.version) else { return false }
            for model in manifest.models {
                let temporary = "_vein_upgrade_\(model.name)"
                try database.execute(SchemaDDL.createTable(model, tableName: temporary, in: manifest))
                try database.execute("INSERT INTO \(q(temporary)) SELECT * FROM \(q(model.name))")
                rows += database.changes
                try database.execute("DROP TABLE \(q(model.name))")
                try database.execute("ALTER TABLE \(q(temporary)) RENAME TO \(q(model.name))")
                for index in SchemaDDL.indexes(for: model, in: manifest) { try database.execute(index.sql(table: model.name)) }
            }
            try database.execute("ALTER TABLE \(q(old.migrationsTable)) RENAME TO \(StoreFormat.migrations)")
            for (key, value) in [(StoreMeta.Key.formatVersion, String(current.version)), (.toolVersion, VeinVersion.current)] {
                try database.execute("UPDATE \"_vein_meta\" SET \"value\" = ? WHERE \"key\" = ?", [.text(value), .text(key.rawValue)])
            }
            try beforeCommit?()
            return true
        }
        guard upgraded else { return Result(from: current.version, to: current.version, models: 0, rows: 0) }
        return Result(from: old.version, to: current.version, models: manifest.models.count, rows: rows)
    }
}
