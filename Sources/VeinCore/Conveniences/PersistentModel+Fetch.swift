import Foundation

/// Per-model fetches (docs/app-guide.md): `Post.fetch(where:sort:in:)` and `Post.fetchOne`, the context's
/// `fetch(FetchDescriptor)` said shorter. They run through the same plan (SQL where the predicate and
/// sort keys translate, Foundation in memory where not), unsaved changes included.
extension PersistentModel {
    /// The objects `predicate` selects (all without one), sorted by `sort`, ties in creation order.
    public static func fetch(where predicate: Predicate<Self>? = nil, sort: [SortDescriptor<Self>] = [],
                             in context: ModelContext) throws -> [Self] {
        try context.fetch(FetchDescriptor(predicate: predicate, sortBy: sort))
    }

    /// The objects a `ModelPredicate` (raw SQL plus a Swift filter) selects, sorted by `sort`.
    public static func fetch(where predicate: ModelPredicate<Self>, sort: [SortDescriptor<Self>] = [],
                             in context: ModelContext) throws -> [Self] {
        try context.fetch(FetchDescriptor(predicate: predicate, sortBy: sort))
    }

    /// The first object `fetch(where:sort:in:)` would return, or nil. The limit of one goes to SQL
    /// when the predicate and sort keys do (SQLite then stops at the first row).
    public static func fetchOne(where predicate: Predicate<Self>? = nil, sort: [SortDescriptor<Self>] = [],
                                in context: ModelContext) throws -> Self? {
        try context.fetch(FetchDescriptor(predicate: predicate, sortBy: sort, fetchLimit: 1)).first
    }

    public static func fetchOne(where predicate: ModelPredicate<Self>, sort: [SortDescriptor<Self>] = [],
                                in context: ModelContext) throws -> Self? {
        try context.fetch(FetchDescriptor(predicate: predicate, sortBy: sort, fetchLimit: 1)).first
    }
}

extension ModelContext {
    /// The objects of the predicate's model it selects, in creation order, as the announcement writes it:
    /// `context.fetchAll(#Predicate<Post> { $0.title.contains("Vein") })`.
    public func fetchAll<T: PersistentModel>(_ predicate: Predicate<T>) throws -> [T] {
        try fetch(FetchDescriptor(predicate: predicate))
    }

    public func fetchAll<T: PersistentModel>(_ predicate: ModelPredicate<T>) throws -> [T] {
        try fetch(FetchDescriptor(predicate: predicate))
    }
}
