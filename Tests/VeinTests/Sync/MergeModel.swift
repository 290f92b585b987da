import Foundation
@testable import Vein

/// A reference model of sync's merge rules (docs/sync.md#merging), written from the rules, not from the
/// merger: it takes every replica's own commits at once, in any order, and computes the store they must
/// all end at. Each cell holds the value of the write with the greatest stamp (clock time, replica, then
/// place in its commit); a row deleted anywhere is gone; a link is present when its newest add or
/// removal is an add; of rows sharing a unique value, only the earliest claim stays (the others are set
/// aside: their links go, and what names them reads NULL); then what points at a row that is gone is
/// detached.
struct MergeModel {
    struct Stamp: Comparable {
        let clock: Int64, replica: String, order: Int
        static func < (a: Stamp, b: Stamp) -> Bool { (a.clock, a.replica, a.order) < (b.clock, b.replica, b.order) }
    }
    typealias Cell = (value: DatabaseValue, stamp: Stamp)

    let manifest: SchemaManifest
    let tables: [LoggedTable]
    /// table → key → column → cell (a link's presence is the column "", 1 or 0).
    private var cells: [String: [String: [String: Cell]]] = [:]
    private var deleted: Set<String> = []
    /// The key cells of every key seen, to write rows back.
    private var keys: [String: [String: [DatabaseValue]]] = [:]

    init(manifest: SchemaManifest) {
        self.manifest = manifest
        tables = LoggedTable.all(in: manifest)
    }

    private mutating func write(_ table: String, _ key: [DatabaseValue], _ column: String, _ value: DatabaseValue, _ stamp: Stamp) {
        let k = SyncStamps.key(key)
        keys[table, default: [:]][k] = key
        if let old = cells[table]?[k]?[column], old.stamp > stamp { return }
        cells[table, default: [:]][k, default: [:]][column] = (value, stamp)
    }

    mutating func apply(_ transaction: LoggedTransaction) {
        var order = 0
        for part in transaction.parts {
            let columns = Array(part.valueColumns)
            for change in part.changes {
                order += 1
                let stamp = Stamp(clock: transaction.clock + Int64(change.clockOffset), replica: transaction.replica, order: order)
                switch (part.isLinkTable, change.kind) {
                case (false, .delete): deleted.insert(part.tableName + "|" + SyncStamps.key(change.key))
                case (false, _):
                    if change.kind == .insert { write(part.tableName, change.key, "", .integer(1), stamp) }
                    for (column, value) in change.values { write(part.tableName, change.key, columns[column], value, stamp) }
                case (true, .delete): write(part.tableName, change.key, "", .integer(0), stamp)
                case (true, let kind):
                    if kind != .update { write(part.tableName, change.key, "", .integer(1), stamp) }
                    for (column, value) in change.values { write(part.tableName, change.key, columns[column], value, stamp) }
                }
            }
        }
    }

    /// Every table's rows (key columns, then value columns, in table order), sorted by key.
    func rows() -> [String: [[DatabaseValue]]] {
        var result: [String: [String: [DatabaseValue]]] = [:]
        for table in tables {
            for (k, row) in cells[table.name] ?? [:] where row[""]?.value == .integer(1) && !deleted.contains(table.name + "|" + k) {
                result[table.name, default: [:]][k] = keys[table.name]![k]! + table.valueColumns.map { row[$0]?.value ?? .null }
            }
        }
        setAside(&result)
        // What still points at a row that is gone is detached: a to-one cleared (unless its rule is
        // noAction), a link removed. Deletes are final, so one pass over the final rows is all it takes.
        func exists(_ model: String, _ id: DatabaseValue) -> Bool { result[model]?[SyncStamps.key([id])] != nil }
        for storage in RelationshipStorage.all(in: manifest) {
            switch storage.kind {
            case .column:
                guard SyncMerger.referenceRule(storage, in: manifest) != .noAction,
                      let column = tables.first(where: { $0.name == storage.model })?.valueColumns.firstIndex(of: storage.name).map({ $0 + 1 }) else { continue }
                for (k, row) in result[storage.model] ?? [:] where row[column] != .null && !exists(storage.target, row[column]) {
                    result[storage.model]![k]![column] = .null
                }
            case .linkTable:
                guard storage.isCanonical, let link = storage.linkTable else { continue }
                for (k, row) in result[link] ?? [:] where !exists(storage.model, row[0]) || !exists(storage.target, row[1]) {
                    result[link]![k] = nil
                }
            case .reverseColumn:
                continue
            }
        }
        return result.mapValues { $0.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Takes out the rows a unique-value conflict sets aside (docs/sync.md#unique-values): in claim order
    /// (the newest stamp among a row's unique columns, then its id), a row stays when no row that stayed
    /// before it shares one of its unique values. Their links go, and to-ones naming them read NULL.
    private func setAside(_ result: inout [String: [String: [DatabaseValue]]]) {
        var aside: [String: Set<String>] = [:]
        for model in manifest.models {
            let sets = model.fields.filter(\.isUnique).map { [$0.name] } + model.uniquenessConstraints
            guard !sets.isEmpty, let table = tables.first(where: { $0.name == model.name }), let rows = result[model.name] else { continue }
            func claim(_ k: String) -> ClaimKey {
                let row = cells[model.name]?[k] ?? [:]
                let stamp = sets.joined().flatMap { [row[$0]?.stamp, row[""]?.stamp].compactMap { $0 } }.max()
                return ClaimKey(clock: stamp?.clock ?? .min, replica: stamp?.replica ?? "", id: k)
            }
            var kept: [[DatabaseValue]] = []
            for k in rows.keys.sorted(by: { claim($0) < claim($1) }) {
                let row = rows[k]!
                func values(_ columns: [String]) -> [DatabaseValue]? {
                    let cells = columns.map { row[table.valueColumns.firstIndex(of: $0)! + 1] }
                    return cells.contains(.null) ? nil : cells
                }
                let collides = sets.contains { columns in
                    guard let mine = values(columns) else { return false }
                    return kept.contains { other in columns.map { other[table.valueColumns.firstIndex(of: $0)! + 1] } == mine }
                }
                if collides { aside[model.name, default: []].insert(k) } else { kept.append(row) }
            }
            for k in aside[model.name] ?? [] { result[model.name]![k] = nil }
        }
        guard !aside.isEmpty else { return }
        func isAside(_ model: String, _ id: DatabaseValue) -> Bool { aside[model]?.contains(SyncStamps.key([id])) == true }
        for storage in RelationshipStorage.all(in: manifest) {
            switch storage.kind {
            case .column:
                guard let column = tables.first(where: { $0.name == storage.model })?.valueColumns.firstIndex(of: storage.name).map({ $0 + 1 }) else { continue }
                for (k, row) in result[storage.model] ?? [:] where row[column] != .null && isAside(storage.target, row[column]) {
                    result[storage.model]![k]![column] = .null
                }
            case .linkTable:
                guard storage.isCanonical, let link = storage.linkTable else { continue }
                for (k, row) in result[link] ?? [:] where isAside(storage.model, row[0]) || isAside(storage.target, row[1]) {
                    result[link]![k] = nil
                }
            case .reverseColumn:
                continue
            }
        }
    }

    struct ClaimKey: Comparable {
        let clock: Int64, replica: String, id: String
        static func < (a: ClaimKey, b: ClaimKey) -> Bool { (a.clock, a.replica, a.id) < (b.clock, b.replica, b.id) }
    }

    /// The same tables as `store` holds them.
    static func rows(of store: Store, tables: [LoggedTable]) throws -> [String: [[DatabaseValue]]] {
        var result: [String: [[DatabaseValue]]] = [:]
        for table in tables {
            let columns = table.columns.map(SQL.quoteIdentifier).joined(separator: ", ")
            let rows = try store.database.rows("SELECT \(columns) FROM \(SQL.quoteIdentifier(table.name))")
            if !rows.isEmpty {
                result[table.name] = rows.sorted { SyncStamps.key(Array($0.prefix(table.keyColumns.count))) < SyncStamps.key(Array($1.prefix(table.keyColumns.count))) }
            }
        }
        return result
    }
}
