/// An option of `@Attribute(…)`, spelled as SwiftData spells `Schema.Attribute.Option`, so a model written
/// for SwiftData compiles unchanged. `@Model` reads the options from the declaration; a value of this type
/// is never used at run time.
public struct AttributeOption: Sendable, Hashable {
    let name: String

    /// The field's values are unique across the model's rows: the manifest's `unique`, a SQLite UNIQUE
    /// constraint (as `@Unique`), and the key `upsert` and insert find an existing row by.
    public static let unique = AttributeOption(name: "unique")
    /// SwiftData keeps such a value beside the store; Vein makes the field lazy (as `@LazyField`): left out
    /// of fetches and read from the store on first access, which is what large values need.
    public static let externalStorage = AttributeOption(name: "externalStorage")
    /// The value stays in the history's record of the row's delete (its tombstone, SwiftData's
    /// `HistoryTombstone`; docs/history.md), in a store that keeps history.
    public static let preserveValueOnDeletion = AttributeOption(name: "preserveValueOnDeletion")
    /// SwiftData encrypts the value in CloudKit. A Vein store is encrypted whole, so every value already is:
    /// the option is accepted and changes nothing.
    public static let allowsCloudEncryption = AttributeOption(name: "allowsCloudEncryption")
}
