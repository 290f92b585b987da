/// What to fetch: a model, a condition, an order, a window (docs/app-guide.md, docs/repl.md).
public struct ObjectFetch: Sendable {
    public struct SortKey: Equatable, Sendable {
        public let field: String
        public let ascending: Bool
        public init(_ field: String, ascending: Bool = true) {
            self.field = field
            self.ascending = ascending
        }
    }

    public var model: String
    /// A type-checked condition (see `TypeChecker.checkPredicate`); nil fetches every row.
    public var predicate: TypedExpression?
    /// Sort keys in order; rows equal on every key stay in id (creation) order, as a stable sort.
    public var sortBy: [SortKey]
    public var fetchLimit: Int?
    public var fetchOffset: Int
    /// Whether inserted, changed and deleted objects not yet saved count (SwiftData's default: yes).
    public var includePendingChanges: Bool
    /// Restricts the fetch to these ids, keeping their order when there are no sort keys (a to-many's
    /// order). Used for relationship traversal.
    public var restrictedTo: [String]?
    /// Restricts to rows whose to-one `column` names `id`: traversal through an inverse, pushed to SQL
    /// and its index.
    public var owner: (column: String, id: String)?
    /// The members of a relationship of one owner, found in SQL through the relationship's index (with
    /// `restrictedTo` holding the same ids in the relationship's order, for the order and pending rows).
    package var members: (storage: RelationshipStorage, owner: String)?
    /// With `members`: ids linked to the owner and not saved yet (the store's members do not have them),
    /// selected beside the stored members; `restrictedTo` then decides in memory (an unsaved unlink).
    package var membersLinkedSinceSave: [String]?
    /// A raw SQL condition over the model's table (VeinCore's `ModelPredicate`), with its `?` arguments.
    /// It reads stored rows only: the fetch checks it reads (and only reads) before it runs, and it
    /// cannot judge unsaved objects, so the caller leaves pending changes out.
    package var sqlCondition: (sql: String, arguments: [DatabaseValue])?
    /// The fields and to-ones to read of each row (SwiftData's `propertiesToFetch`); nil reads all but
    /// lazy fields. A column left out is read from the store when first asked for, as a lazy field is,
    /// so values read are the same either way; a row the context already holds keeps what it has read.
    public var columnsToFetch: [String]?
    /// Relationships whose targets the fetch loads for all the objects it returns, one statement per
    /// relationship for every `SQLCompiler.maxArguments` objects (SwiftData's
    /// `relationshipKeyPathsForPrefetching`): reading them then reads no more of the store.
    public var relationshipsToPrefetch: [String] = []

    public init(model: String, predicate: TypedExpression? = nil, sortBy: [SortKey] = [], fetchLimit: Int? = nil,
                fetchOffset: Int = 0, includePendingChanges: Bool = true) {
        self.model = model
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includePendingChanges = includePendingChanges
    }
}
