import Vein

/// A model's field and relationship table, as @Model writes it from the class declaration: the model's
/// part of the schema manifest (`schema`), in declaration order (which is the column order).
public struct ModelDescription: Sendable {
    public let name: String
    public let properties: [PropertyDescription]
    /// The model's indexes (`#Index`), each the names of its fields or to-one relationships in key order.
    public let indexes: [[String]]
    /// The compound unique constraints (`#Unique<T>([\.a, \.b])`), each two or more names; a list of one
    /// field is that field's `unique`.
    public let uniquenessConstraints: [[String]]
    /// The model's name in the previous schema version (`@Model(originalName:)`).
    public let originalName: String?
    /// The required fields whose Swift type has no empty value: a typed context reads them with every row
    /// (ReadWithEveryRow.swift).
    let readWithEveryRow: Set<String>
    /// A row's identities for `upsert` and for an insert of values a row holds: each `@Unique` field
    /// alone, then each compound constraint of fields. A constraint that includes a to-one relationship
    /// is the store's to enforce at `save`: a new instance's target may have no row yet to compare.
    /// Worked out once: every typed insert of the model asks.
    let uniqueKeys: [[FieldSchema]]

    public init(name: String, properties: [PropertyDescription], indexes: [[String]] = [], uniquenessConstraints: [[String]] = [],
                originalName: String? = nil) {
        self.name = name
        self.properties = properties
        self.indexes = indexes
        self.uniquenessConstraints = uniquenessConstraints
        self.originalName = originalName
        readWithEveryRow = Set(properties.compactMap { property in
            guard case .field(let field, hasEmptyValue: false) = property, !field.isOptional else { return nil }
            return field.name
        })
        uniqueKeys = Self.uniqueKeys(properties, uniquenessConstraints)
    }

    /// The model as the manifest describes it. Inverses are named on this side only when the class
    /// names them; `VersionedSchema.manifest` completes the other side.
    public var schema: ModelSchema {
        var fields: [FieldSchema] = [], relationships: [RelationshipSchema] = []
        for property in properties {
            switch property {
            case .field(let field, _): fields.append(field)
            case .relationship(let relationship): relationships.append(relationship)
            }
        }
        return ModelSchema(name: name, fields: fields, relationships: relationships, indexes: indexes,
                           uniquenessConstraints: uniquenessConstraints, renamedFrom: originalName)
    }

    private static func uniqueKeys(_ properties: [PropertyDescription], _ uniquenessConstraints: [[String]]) -> [[FieldSchema]] {
        var fields: [String: FieldSchema] = [:]
        for case .field(let field, _) in properties { fields[field.name] = field }
        return properties.compactMap { property in
            guard case .field(let field, _) = property, field.isUnique else { return nil }
            return [field]
        } + uniquenessConstraints.compactMap { constraint in
            let key = constraint.compactMap { fields[$0] }
            return key.count == constraint.count ? key : nil
        }
    }
}

/// One entry of the table. Its `field` entry points, one for each kind of declared type, are in
/// FieldTypeOverloads.swift.
public enum PropertyDescription: Sendable {
    /// A field, and whether its Swift type has a value to read when there is none stored
    /// (`AbsentFieldValue`): nil for an optional, "" for a String; a Codable struct has none.
    case field(FieldSchema, hasEmptyValue: Bool = true)
    case relationship(RelationshipSchema)

    public static func toOne<T: PersistentModel>(_ name: String, _ target: T.Type, inverse: String? = nil,
                                                 deleteRule: DeleteRule = .nullify, originalName: String? = nil) -> PropertyDescription {
        .relationship(RelationshipSchema(name: name, target: T.modelName, isToMany: false, inverse: inverse,
                                         deleteRule: deleteRule, renamedFrom: originalName))
    }

    public static func toMany<T: PersistentModel>(_ name: String, _ target: T.Type, inverse: String? = nil,
                                                  deleteRule: DeleteRule = .nullify, originalName: String? = nil) -> PropertyDescription {
        .relationship(RelationshipSchema(name: name, target: T.modelName, isToMany: true, inverse: inverse,
                                         deleteRule: deleteRule, renamedFrom: originalName))
    }
}

/// The name of an inverse relationship (@Model passes the key path's last component as written), with
/// its key path type-checked: only a relationship back to the owning model (`Owner?` or `[Owner]`) is
/// accepted; any other is a compile-time error with the message below.
public enum Inverse {
    public static func named<Target: PersistentModel, Owner: PersistentModel>(_ name: String, _ path: KeyPath<Target, Owner?>,
                                                                         from owner: Owner.Type) -> String {
        name
    }

    public static func named<Target: PersistentModel, Owner: PersistentModel>(_ name: String, _ path: KeyPath<Target, [Owner]>,
                                                                         from owner: Owner.Type) -> String {
        name
    }

    /// An optional to-many (`var pets: [Pet]? = []`, the CloudKit-style shape).
    public static func named<Target: PersistentModel, Owner: PersistentModel>(_ name: String, _ path: KeyPath<Target, [Owner]?>,
                                                                         from owner: Owner.Type) -> String {
        name
    }

    @available(*, unavailable, message: "the inverse must be a relationship of the target model back to this model ('Model?' or '[Model]')")
    public static func named<Target, Property, Owner>(_ name: String, _ path: KeyPath<Target, Property>,
                                                     from owner: Owner.Type) -> String {
        fatalError()
    }
}

/// A Swift default value as the manifest's `default` (JSON). Date, data and json defaults are not
/// written to the manifest yet (the object still gets its initial value when it is inserted).
enum ManifestDefault {
    static func json(_ value: Value, kind: FieldKind) -> JSONValue? {
        switch value {
        case .null: return nil
        case .string(let s) where kind.type != .json: return .string(s)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        default: return nil
        }
    }
}
