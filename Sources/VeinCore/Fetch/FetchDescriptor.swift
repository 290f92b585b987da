import Foundation

/// What to fetch of model `T` (SPEC §10, as SwiftData writes it): a `#Predicate`, Foundation's
/// `SortDescriptor`s on key paths, a window, and whether unsaved changes count.
///
/// The predicate runs in SQL when VeinCore can translate it (see `PredicateTranslation`), and with
/// Foundation's own `predicate.evaluate` in memory when it cannot: never a trap. Sort keys on a
/// field's key path (optional fields too) sort in SQL; any other (a to-one path, a computed property,
/// a string comparator) sorts in memory with Foundation's comparison.
public struct FetchDescriptor<T: PersistentModel>: Sendable {
    public var predicate: Predicate<T>?
    public var sortBy: [SortDescriptor<T>]
    public var fetchLimit: Int?
    public var fetchOffset: Int?
    /// Whether inserted, changed and deleted objects not yet saved count (SwiftData's default: yes).
    public var includePendingChanges: Bool
    /// A `ModelPredicate`'s raw SQL condition and Swift filter (Conveniences/ModelPredicate.swift).
    var modelPredicate: ModelPredicate<T>?

    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = [], fetchLimit: Int? = nil,
                fetchOffset: Int? = nil, includePendingChanges: Bool = true) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includePendingChanges = includePendingChanges
    }
}
