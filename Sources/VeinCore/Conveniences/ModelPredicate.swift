import Foundation
import Vein

/// A condition for fetching model `T` that a `#Predicate` cannot say, or says slowly (docs/app-guide.md:
/// "ModelPredicate also accepts raw SQL plus a Swift filter"): a SQL condition over `T`'s table, run by
/// SQLite in the fetch's `WHERE`, and an optional Swift filter applied to the instances SQL selected.
///
/// ```swift
/// let recent = ModelPredicate<Post>(sql: "views > ? AND publishedAt IS NOT NULL", arguments: [10]) { $0.title.count < 40 }
/// let posts = try Post.fetch(where: recent, sort: [SortDescriptor(\.title)], in: context)
/// ```
///
/// - The SQL names columns by field name (a to-one by its relationship's name, holding the target's id;
///   `id` is the row's id) and sees values in their stored form (docs/store-format.md: a Bool is 0 or 1, a Date seconds
///   since 1970 as a REAL, an enum its raw value, a UUID its text). Bind values with `?` and `arguments`
///   rather than writing them into the text.
/// - It is the app's own code, not a place for user input, but it can only read: before the fetch runs,
///   the condition is prepared alone under the read-only authorizer the REPL's `.sql` uses, so anything
///   that would write (a function such as `sqlcipher_export`, a second statement) is refused with
///   `ReadOnlySQLError`, and nothing runs.
/// - It stays a condition: parentheses that do not balance (outside literals, quoted names and comments),
///   a comment, literal or quoted name that does not end, or a `;` are refused, as are numbered or named
///   parameters (`?1`, `:name`) and a count of `?` other than `arguments.count` (`SQLConditionError`).
///   String arguments are compared as stored: in NFC.
/// - SQL reads the store as last saved: a fetch with a SQL condition leaves out objects inserted and not
///   saved yet, and judges a row this context changed by its stored values (the Swift filter then sees
///   the instance as it is now). Save first when that matters.
public struct ModelPredicate<T: PersistentModel>: Sendable {
    let predicate: Predicate<T>?
    let sql: String?
    let arguments: [DatabaseValue]
    let filter: (@Sendable (T) throws -> Bool)?

    /// A raw SQL condition over `T`'s table with its `?` arguments, and an optional Swift filter.
    public init(sql: String, arguments: [any FieldValue & Sendable] = [], filter: (@Sendable (T) throws -> Bool)? = nil) {
        self.predicate = nil
        self.sql = sql
        // Text as it is stored (NFC, docs/store-format.md), so a decomposed "é" finds the stored composed one.
        self.arguments = arguments.map { argument in
            guard case .string(let text) = argument.fieldValue else { return argument.fieldValue.databaseValue }
            return Value.string(NormalForm.text(text)).databaseValue
        }
        self.filter = filter
    }

    /// A Swift filter alone, applied in memory to every object of `T` (unsaved ones included).
    public init(filter: @escaping @Sendable (T) throws -> Bool) {
        self.predicate = nil
        self.sql = nil
        self.arguments = []
        self.filter = filter
    }

    /// A `#Predicate`, translated to SQL where it can be (as in `FetchDescriptor`).
    public init(_ predicate: Predicate<T>) {
        self.predicate = predicate
        self.sql = nil
        self.arguments = []
        self.filter = nil
    }
}

extension FetchDescriptor {
    /// A fetch selecting with a `ModelPredicate`. With a SQL condition unsaved changes do not count
    /// (`includePendingChanges` is then false: SQL cannot read them).
    public init(predicate: ModelPredicate<T>, sortBy: [SortDescriptor<T>] = [], fetchLimit: Int? = nil, fetchOffset: Int? = nil) {
        self.init(predicate: predicate.predicate, sortBy: sortBy, fetchLimit: fetchLimit, fetchOffset: fetchOffset,
                  includePendingChanges: predicate.sql == nil)
        if predicate.sql != nil || predicate.filter != nil { modelPredicate = predicate }
    }
}
