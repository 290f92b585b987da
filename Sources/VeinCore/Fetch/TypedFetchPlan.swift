import Foundation
import Vein

/// How a typed fetch runs: the engine's descriptor (condition, sort keys, window in SQL where they
/// translate) and what is left to memory, with Foundation's semantics deciding.
struct TypedFetchPlan<T: PersistentModel> {
    var engine: ObjectFetch
    /// The predicate did not translate (Foundation's `evaluate`), or a `ModelPredicate`'s Swift filter:
    /// it filters the fetched instances.
    var filterInMemory: ((T) throws -> Bool)?
    /// A sort key did not translate: Foundation's `SortDescriptor` comparison orders the instances.
    var sortInMemory: [SortDescriptor<T>]?
    var window: (offset: Int, limit: Int?)

    var isAllInEngine: Bool { filterInMemory == nil && sortInMemory == nil }

    /// What this plan leaves to Swift after the engine's fetch, for `explain`.
    var inMemory: [String] {
        (filterInMemory == nil ? [] : ["the predicate (Foundation's evaluate on each fetched instance)"])
            + (sortInMemory == nil ? [] : ["the sort (Foundation's SortDescriptor comparison)"])
            + (isAllInEngine || (window.offset == 0 && window.limit == nil) ? [] : ["fetchLimit and fetchOffset"])
    }

    init(_ descriptor: FetchDescriptor<T>, context: ObjectContext) throws {
        engine = ObjectFetch(model: T.modelName, includePendingChanges: descriptor.includePendingChanges)
        if !descriptor.propertyNamesToFetch.isEmpty { engine.columnsToFetch = descriptor.propertyNamesToFetch }
        engine.relationshipsToPrefetch = descriptor.relationshipNamesToPrefetch
        window = (max(0, descriptor.fetchOffset ?? 0), descriptor.fetchLimit.map { max(0, $0) })
        if let predicate = descriptor.predicate {
            if let typed = PredicateTranslation.typedExpression(predicate, manifest: context.manifest) {
                engine.predicate = typed
            } else {
                filterInMemory = { try predicate.evaluate($0) }
            }
        }
        if let raw = descriptor.modelPredicate {
            if let sql = raw.sql {
                // SQL reads the store: unsaved objects cannot be judged by it (see ModelPredicate).
                engine.sqlCondition = (sql, raw.arguments)
                engine.includePendingChanges = false
            }
            if let filter = raw.filter {
                filterInMemory = filterInMemory.map { first in { try first($0) && filter($0) } } ?? filter
            }
        }
        let keys = descriptor.sortBy.map(Self.sortKey)
        if keys.allSatisfy({ $0 != nil }) {
            engine.sortBy = keys.compactMap { $0 }
        } else {
            sortInMemory = descriptor.sortBy
        }
        if isAllInEngine {
            engine.fetchLimit = window.limit
            engine.fetchOffset = window.offset
        } else {
            // Foundation filters or sorts the instances: it would read the fields left out one row at a time.
            engine.columnsToFetch = nil
        }
    }

    /// A sort key the engine orders exactly as Foundation does: a stored field's key path compared with
    /// `<` (the engine sorts nil first and strings by Swift's `<`, as `SortDescriptor` does). A string
    /// comparator (`.localizedStandard`, …) is Foundation's to apply.
    static func sortKey(_ descriptor: SortDescriptor<T>) -> ObjectFetch.SortKey? {
        guard descriptor.stringComparator == nil, let keyPath = descriptor.keyPath,
              let name = T.propertyName(for: keyPath), T._$schema.isField(name) else { return nil }
        return ObjectFetch.SortKey(name, ascending: descriptor.order == .forward)
    }

    /// The engine's objects as instances, with what the engine did not do applied here.
    func finish(_ objects: [ModelObject]) throws -> [T] {
        var models = T.instances(objects)
        if let filter = filterInMemory { models = try models.filter(filter) }
        if let sort = sortInMemory, !sort.isEmpty {
            // Stable: ties keep the engine's order (id, creation order), as SQL's last sort key does.
            models = models.enumerated().sorted { a, b in
                for key in sort {
                    switch key.compare(a.element, b.element) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return a.offset < b.offset
            }.map(\.element)
        }
        if isAllInEngine { return models }
        let start = min(window.offset, models.count)
        // Clamped, not added: a limit of Int.max with an offset must not overflow.
        let end = window.limit.map { start + max(0, min(models.count - start, $0)) } ?? models.count
        return Array(models[start..<end])
    }
}

extension ModelDescription {
    func isField(_ name: String) -> Bool {
        properties.contains { if case .field(let field, _) = $0 { return field.name == name } else { return false } }
    }
}
