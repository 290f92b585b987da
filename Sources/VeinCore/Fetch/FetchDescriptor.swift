import Foundation

/// What to fetch of model `T` (docs/app-guide.md, as SwiftData writes it): a `#Predicate`, Foundation's
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
    /// The properties to read of each row now (SwiftData's name): the others are read from the store when
    /// first accessed, as a lazy field is, so the values read are the same either way; a fetch of many
    /// rows for a list that shows two fields then reads two columns. Empty: every field but lazy ones.
    /// A lazy field named here is read with the row. A key path that names no stored property (a computed
    /// one) reads nothing. An object the context already holds keeps what it has read.
    public var propertiesToFetch: [PartialKeyPath<T>] {
        get { Self.keyPaths(named: propertyNamesToFetch) }
        set { propertyNamesToFetch = newValue.compactMap(T.propertyName) }
    }
    /// Relationships whose targets the fetch loads for all the objects it returns, with one statement per
    /// relationship (SwiftData's name): reading `person.pets` for each person then reads no more of the
    /// store, where it would read once per person. A key path that is not a relationship is ignored.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] {
        get { Self.keyPaths(named: relationshipNamesToPrefetch) }
        set { relationshipNamesToPrefetch = newValue.compactMap(T.propertyName).filter { !T._$schema.isField($0) } }
    }
    // Kept as the names the key paths stand for: a key path is not Sendable, and a descriptor is.
    var propertyNamesToFetch: [String] = []
    var relationshipNamesToPrefetch: [String] = []
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

    private static func keyPaths(named names: [String]) -> [PartialKeyPath<T>] {
        let byName = Dictionary(T._$propertyNames.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        return names.compactMap { byName[$0] }
    }
}
