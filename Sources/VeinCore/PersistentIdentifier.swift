/// Which row a model instance is (SwiftData's `PersistentIdentifier`): the model's name and the row's key,
/// a ULID. An instance has it from the moment it is asked, before its insert too: the key is chosen then
/// and the insert makes the row under it, so an identifier kept before `insert` names the row after it.
/// The one exception is insert-as-upsert: an instance whose unique value a row holds becomes that row's,
/// and takes that row's key. Ordered by model, then key (the order rows were made in).
public struct PersistentIdentifier: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    /// The model's name in the manifest (`Person`).
    public let entityName: String
    /// The row's key in the store (a ULID, as `vein query` and the JSON interchange show it).
    public let key: String

    public init(entityName: String, key: String) {
        self.entityName = entityName
        self.key = key
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.entityName, lhs.key) < (rhs.entityName, rhs.key)
    }

    public var description: String { "\(entityName) \(key)" }
}
