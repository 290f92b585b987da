import Foundation

/// A schema version as a store and a plan name it: `MAJOR.MINOR.PATCH`.
public struct SchemaVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let major: Int, minor: Int, patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        (self.major, self.minor, self.patch) = (major, minor, patch)
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let a = Int(parts[0]), let b = Int(parts[1]), let c = Int(parts[2]), a >= 0, b >= 0, c >= 0,
              parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } && ($0 == "0" || !$0.hasPrefix("0")) })
        else { return nil }
        self.init(a, b, c)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
    public static func < (a: SchemaVersion, b: SchemaVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }
}

/// What happens to related rows when a row is deleted (docs/store-format.md).
public enum DeleteRule: String, CaseIterable, Hashable, Sendable {
    case nullify, cascade, deny, noAction
}

/// A stored field of a model.
public struct FieldSchema: Equatable, Sendable {
    public var name: String
    public var type: FieldType
    public var isOptional = false
    public var isLazy = false
    public var isUnique = false
    /// A deleted row's value of this field stays in the change log's record of the delete (SwiftData's
    /// `.preserveValueOnDeletion`, docs/history.md).
    public var preservesValueOnDeletion = false
    /// The default, as JSON of the field's type (validated).
    public var defaultValue: JSONValue?
    /// For `enum` fields: the allowed raw values, all strings or all integers.
    public var enumValues: [JSONValue] = []
    public var renamedFrom: String?

    public init(name: String, type: FieldType, isOptional: Bool = false, isLazy: Bool = false, isUnique: Bool = false,
                defaultValue: JSONValue? = nil, enumValues: [JSONValue] = [], renamedFrom: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isLazy = isLazy
        self.isUnique = isUnique
        self.defaultValue = defaultValue
        self.enumValues = enumValues
        self.renamedFrom = renamedFrom
    }

    public var columnType: String { type.columnType(enumValues: enumValues) }
}

/// A relationship to another model (or the same one). How it is stored (a to-one's column, a to-many
/// through its inverse's column or a link table) is `RelationshipStorage`'s to say.
public struct RelationshipSchema: Hashable, Sendable {
    public var name: String
    public var target: String
    public var isToMany = false
    /// The relationship on the target that mirrors this one; kept in step by the context.
    public var inverse: String?
    public var deleteRule: DeleteRule = .nullify
    public var renamedFrom: String?

    public init(name: String, target: String, isToMany: Bool = false, inverse: String? = nil,
                deleteRule: DeleteRule = .nullify, renamedFrom: String? = nil) {
        self.name = name
        self.target = target
        self.isToMany = isToMany
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.renamedFrom = renamedFrom
    }
}

public struct ModelSchema: Equatable, Sendable {
    public var name: String
    public var fields: [FieldSchema]
    public var relationships: [RelationshipSchema]
    /// Each index lists field (or to-one relationship) names in key order.
    public var indexes: [[String]]
    /// The compound unique constraints (the manifest's model-level `unique`, SwiftData's
    /// `#Unique<T>([\.a, \.b])`): no two rows hold the same values in all of a list's fields. Each lists
    /// two or more fields or to-one relationships; a single field's constraint is its own `isUnique`.
    public var uniquenessConstraints: [[String]]
    public var renamedFrom: String?

    public init(name: String, fields: [FieldSchema] = [], relationships: [RelationshipSchema] = [],
                indexes: [[String]] = [], uniquenessConstraints: [[String]] = [], renamedFrom: String? = nil) {
        self.name = name
        self.fields = fields
        self.relationships = relationships
        self.indexes = indexes
        self.uniquenessConstraints = uniquenessConstraints
        self.renamedFrom = renamedFrom
    }

    public func field(named name: String) -> FieldSchema? { fields.first { $0.name == name } }
    public func relationship(named name: String) -> RelationshipSchema? { relationships.first { $0.name == name } }

    /// Every column name after `id`, in table order: fields, then relationships.
    public var columnNames: [String] { fields.map(\.name) + relationships.map(\.name) }
}

/// A whole schema: the description that a store carries in `_vein_meta` and that a `VersionedSchema`
/// writes. Built only through `ManifestParser`, which validates it, or by code that validates it after.
public struct SchemaManifest: Equatable, Sendable {
    /// The manifest format this build reads and writes (`vein: 1`).
    public static let formatVersion = 1

    public var app: String
    public var version: SchemaVersion
    public var models: [ModelSchema]

    public init(app: String, version: SchemaVersion, models: [ModelSchema]) {
        self.app = app
        self.version = version
        self.models = models
    }

    public func model(named name: String) -> ModelSchema? { models.first { $0.name == name } }
}
