import Vein

/// Makes a final class a persistent model (docs/app-guide.md): its stored `var`s become fields and relationships
/// read and written through the object's context, its field and relationship table becomes its part of
/// the schema manifest, and it conforms to `PersistentModel` and `Sendable`. No reflection: everything
/// is generated at compile time, and misuse (a struct, a non-final class, a type Vein does not store, a
/// relationship to a field type) is a compile-time error.
// `arbitrary`: each to-many with an inverse gets a query named after it (`attachments(where:sort:)`).
@attached(member, names: named(_$backing), named(_$modelName), named(_$schema), named(_$propertyNames), named(init(_$object:)), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Sendable)
public macro Model() = #externalMacro(module: "VeinMacros", type: "ModelMacro")

/// A model renamed from `originalName` in the previous schema version (the manifest's model
/// `renamedFrom`), so a lightweight migration keeps its rows.
// `arbitrary` as on `Model()`: the members the macro adds are the same.
@attached(member, names: named(_$backing), named(_$modelName), named(_$schema), named(_$propertyNames), named(init(_$object:)), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Sendable)
public macro Model(originalName: String) = #externalMacro(module: "VeinMacros", type: "ModelMacro")

/// A field, loaded with its object (the default for a stored `var`; writing it only says so).
@attached(peer)
public macro Field() = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// A field left out of fetches and read from the store on first access (docs/store-format.md `lazy`).
@attached(peer)
public macro LazyField() = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// A field whose values are unique across the model's rows (a SQLite UNIQUE constraint).
@attached(peer)
public macro Unique() = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// SwiftData's `@Attribute`: `options` (`.unique`, `.externalStorage` as a lazy field,
/// `.preserveValueOnDeletion`, `.allowsCloudEncryption`: see `AttributeOption`) and `originalName`, the
/// field's or relationship's name in the previous schema version (the manifest's `renamedFrom`), so a
/// lightweight migration keeps its values. `hashModifier` is accepted for SwiftData's sake: Vein's schema
/// versions are the `VersionedSchema`s, so it changes nothing.
@attached(peer)
public macro Attribute(_ options: AttributeOption..., originalName: String? = nil, hashModifier: String? = nil)
    = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// A relationship to another model: `Model?` is a to-one, `[Model]` or `[Model]?` a to-many (in the order
/// given). Optional, as in SwiftData: a property whose type is a model is a relationship without it.
@attached(peer)
public macro Relationship(deleteRule: DeleteRule = .nullify) = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// A relationship with its inverse on the target model, which the context keeps in step.
@attached(peer)
public macro Relationship<Target: PersistentModel, Inverse>(inverse: KeyPath<Target, Inverse>, deleteRule: DeleteRule = .nullify)
    = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// The same, in SwiftData's argument order: `@Relationship(deleteRule: .cascade, inverse: \Pet.owner)`.
@attached(peer)
public macro Relationship<Target: PersistentModel, Inverse>(deleteRule: DeleteRule, inverse: KeyPath<Target, Inverse>)
    = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// The accessors of a persisted property, and its stored marker (`_Assigned`); @Model adds it, apps do
/// not write it. `column` is the field's position among the model's columns (its fields in declaration
/// order, then its relationships).
@attached(peer, names: prefixed(_$assigned_))
@attached(accessor, names: named(init), named(get), named(set))
public macro _PersistedProperty(column: Int = -1) = #externalMacro(module: "VeinMacros", type: "PersistedPropertyMacro")

/// A property @Model does not persist: not stored, not in the manifest, each instance (a fetched one too)
/// starting with the initial value. The model stays `Sendable`, so @Model makes a `var` a computed property
/// over lock-protected storage (`_TransientProperty`); it needs a written type, and an initial value unless
/// it is optional. A `let` is left as it is.
@attached(peer)
public macro Transient() = #externalMacro(module: "VeinMacros", type: "MarkerMacro")

/// The storage and accessors of a `@Transient var`; @Model adds it, apps do not write it.
@attached(peer, names: prefixed(_$transient_))
@attached(accessor, names: named(init), named(get), named(set))
public macro _TransientProperty() = #externalMacro(module: "VeinMacros", type: "TransientMacro")

/// The model's indexes (docs/store-format.md `indexes`), inside an `@Model` class: each array lists the fields (or
/// to-one relationships) of one index in key order. `#Index<Post>([\.publishedAt], [\.title, \.views])`
@freestanding(declaration)
public macro Index<T>(_ indexes: [PartialKeyPath<T>]...) = #externalMacro(module: "VeinMacros", type: "IndexMacro")

/// SwiftData's uniqueness constraints, inside an `@Model` class: `#Unique<Person>([\.email], [\.givenName, \.familyName])`
/// declares one constraint per list. A list of one field makes that field unique, as `@Attribute(.unique)`
/// does; a list of several makes their combination unique (the manifest's model-level `unique`, a UNIQUE
/// index over the columns): two rows may share a `givenName`, not a `givenName` and a `familyName`. As
/// in SQL, a row with nil in one of the fields collides with none. `upsert` and `insert` find a row by
/// the combination as they do by a unique field.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "VeinMacros", type: "IndexMacro")
