import Foundation
import Vein

extension ModelContext {
    /// Who this context's saves are by, in the store's history (SwiftData's `ModelContext.author`): a
    /// widget and its app, or an import and the user, tell their changes apart by it.
    public var author: String? {
        get { engine.author }
        set { engine.author = newValue }
    }

    /// The store's history: the transactions `descriptor` selects, each with its changes to the app's
    /// models (SwiftData's `fetchHistory`). A store keeps history when it was created with it
    /// (`ModelConfiguration(keepsHistory: true)`, `vein create --history`); otherwise this throws
    /// `HistoryError.notKept`. Only `DefaultHistoryTransaction` is served. Migrations and writes another
    /// program made are not transactions of the app's models and are left out.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> else {
            throw HistoryError.unsupportedTransactionType(String(describing: T.self))
        }
        let logged: [LoggedTransaction]
        do { logged = try engine.changeLog() } catch ChangeLogError.notKept(let path) { throw HistoryError.notKept(path) }
        if let predicate = descriptor.predicate { try requireUnexpired(HistoryTokens.named(in: predicate.expression)) }
        var transactions = logged.filter { $0.kind == .changes }.map(transaction)
        if let predicate = descriptor.predicate { transactions = try transactions.filter { try predicate.evaluate($0) } }
        if !descriptor.sortBy.isEmpty { transactions.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit { transactions = Array(transactions.prefix(max(0, limit))) }
        return transactions as! [T]
    }

    /// Removes history (SwiftData's `deleteHistory`): the oldest transactions, up to the first one
    /// `descriptor` does not select. The log is kept whole from its first transaction on, so a transaction
    /// the descriptor selects after one it does not is kept, as are the ones after it; the usual
    /// descriptor, `#Predicate { $0.token < token }`, selects a run from the start and removes it all.
    /// A later `fetchHistory` whose predicate names a removed token throws `HistoryError.tokenExpired`.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> else {
            throw HistoryError.unsupportedTransactionType(String(describing: T.self))
        }
        let logged: [LoggedTransaction]
        do { logged = try engine.changeLog() } catch ChangeLogError.notKept(let path) { throw HistoryError.notKept(path) }
        var through: Int64?
        for entry in logged {
            // Migrations and another program's writes are not the app's transactions: they go with their neighbours.
            if entry.kind == .changes, let predicate = descriptor.predicate, !(try predicate.evaluate(transaction(entry))) { break }
            through = entry.token
        }
        if let through { try engine.pruneChangeLog(through: through) }
    }

    /// SwiftData's "history token expired": a token the predicate names (the one an app kept, typically
    /// `$0.token > token`) that the log was pruned past would select less than happened since it.
    private func requireUnexpired(_ tokens: [DefaultHistoryToken]) throws {
        guard !tokens.isEmpty, let pruned = try engine.changeLogPrunedThrough() else { return }
        let replica = try engine.changeLogReplica()
        if let oldest = tokens.filter({ $0.storeIdentifier == replica }).min(), oldest.value < pruned {
            throw HistoryError.tokenExpired(oldest.value, prunedThrough: pruned)
        }
    }

    private func transaction(_ logged: LoggedTransaction) -> DefaultHistoryTransaction {
        var changes: [HistoryChange] = []
        for part in logged.parts {
            if part.isLinkTable {
                changes += linkChanges(part)
                continue
            }
            guard let type = modelTypes[part.tableName] else { continue }
            let columns = Array(part.valueColumns)
            for change in part.changes {
                guard let key = change.key.first?.string else { continue }
                let id = PersistentIdentifier(entityName: part.tableName, key: key)
                switch change.kind {
                case .insert, .insertContinued: changes.append(Self.insert(type, id))
                case .update: changes.append(Self.update(type, id, changed: change.values.map { columns[$0.column] }))
                case .delete:
                    let model = engine.manifest.model(named: part.tableName)
                    let kept = change.values.compactMap { column, value -> (String, Any)? in
                        let name = columns[column]
                        guard let field = model?.field(named: name), let swift = Self.swiftValue(field.codec.value(fromDatabase: value)) else { return nil }
                        return (name, swift)
                    }
                    changes.append(Self.delete(type, id, kept: kept))
                }
            }
        }
        return DefaultHistoryTransaction(token: DefaultHistoryToken(storeIdentifier: logged.replica, value: logged.token),
                                         author: logged.author, timestamp: logged.date, changes: changes,
                                         storeIdentifier: logged.replica)
    }

    /// A link table's row added, removed or moved is an update of the relationship on both sides.
    private func linkChanges(_ part: LoggedPart) -> [HistoryChange] {
        guard let storage = RelationshipStorage.all(in: engine.manifest).first(where: { $0.linkTable == part.tableName && $0.isCanonical })
        else { return [] }
        var changes: [HistoryChange] = []
        for change in part.changes {
            guard let owner = change.key.first?.string, let member = change.key.dropFirst().first?.string else { continue }
            if let type = modelTypes[storage.model] {
                changes.append(Self.update(type, PersistentIdentifier(entityName: storage.model, key: owner), changed: [storage.name]))
            }
            if let inverse = storage.relationship.inverse, let type = modelTypes[storage.target], change.kind != .update {
                changes.append(Self.update(type, PersistentIdentifier(entityName: storage.target, key: member), changed: [inverse]))
            }
        }
        return changes
    }

    private static func insert<M: PersistentModel>(_: M.Type, _ id: PersistentIdentifier) -> HistoryChange {
        .insert(DefaultHistoryInsert<M>(changedPersistentIdentifier: id))
    }

    private static func delete<M: PersistentModel>(_: M.Type, _ id: PersistentIdentifier, kept: [(String, Any)]) -> HistoryChange {
        let byName = keyPaths(M.self)
        let values = kept.compactMap { name, value in byName[name].map { (keyPath: $0, value: value) } }
        return .delete(DefaultHistoryDelete<M>(changedPersistentIdentifier: id, tombstone: HistoryTombstone(values: values)))
    }

    /// The model's key paths by property name (the macro's table, inverted).
    private static func keyPaths<M: PersistentModel>(_: M.Type) -> [String: PartialKeyPath<M>] {
        Dictionary(M._$propertyNames.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A stored value as Swift holds it; nil for NULL.
    private static func swiftValue(_ value: Value) -> Any? {
        switch value {
        case .null, .array: return nil
        case .string(let s): return s
        case .int(let i): return Int(i)
        case .double(let d): return d
        case .bool(let b): return b
        case .date(let seconds): return Date(timeIntervalSince1970: seconds)
        case .data(let d): return d
        }
    }

    /// `changed`: stored column names; a position column (a list's order kept in the member's row) is
    /// no property of the member.
    private static func update<M: PersistentModel>(_: M.Type, _ id: PersistentIdentifier, changed: [String]) -> HistoryChange {
        let byName = keyPaths(M.self)
        return .update(DefaultHistoryUpdate<M>(changedPersistentIdentifier: id, updatedAttributes: changed.compactMap { byName[$0] }))
    }
}

/// Why `fetchHistory` cannot answer.
public enum HistoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store keeps no history: it was created without it.
    case notKept(String)
    /// A transaction type other than `DefaultHistoryTransaction`.
    case unsupportedTransactionType(String)
    /// The predicate names a token the log was pruned past (SwiftData's `historyTokenExpired`): read the
    /// history again from its start.
    case tokenExpired(Int64, prunedThrough: Int64)

    public var description: String {
        switch self {
        case .notKept(let path):
            return "\(path) keeps no history: start it with 'vein history enable', or create the store with it (ModelConfiguration(keepsHistory: true))"
        case .unsupportedTransactionType(let type):
            return "fetchHistory serves DefaultHistoryTransaction, not \(type)"
        case .tokenExpired(let token, let pruned):
            return "history token \(token) expired: the history was removed through token \(pruned); read it again from its start"
        }
    }
}
