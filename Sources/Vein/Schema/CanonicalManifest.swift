import Foundation

/// The canonical form of a manifest: the one text that `_vein_meta` stores and whose SHA-256 identifies a
/// schema. Two manifests that mean the same thing have the same canonical text, whatever shorthand,
/// comments or key order they were written with.
///
/// Rules: every definition is an object; its attribute keys are sorted; attributes at their default
/// (`optional: false`, `deleteRule: "nullify"`, …) are left out; inverses are named on both sides; models,
/// fields and relationships keep their declared order, since that order is the column order; no
/// whitespace.
extension SchemaManifest {
    public var canonicalJSON: JSONValue {
        var modelsObject = JSONObject()
        for model in models { modelsObject[model.name] = .object(Self.canonical(model)) }
        return .object(JSONObject([
            ("app", .string(app)),
            ("models", .object(modelsObject)),
            ("vein", .int(Int64(SchemaManifest.formatVersion))),
            ("version", .string(version.description)),
        ]))
    }

    public var canonicalText: String { JSONWriter.string(canonicalJSON) }
    public var sha256: String { SHA256.hex(canonicalText) }

    private static func canonical(_ model: ModelSchema) -> JSONObject {
        var fields = JSONObject()
        for field in model.fields { fields[field.name] = .object(canonical(field)) }
        var rels = JSONObject()
        for rel in model.relationships { rels[rel.name] = .object(canonical(rel)) }
        var body = JSONObject()
        body["fields"] = .object(fields)
        if !model.indexes.isEmpty { body["indexes"] = fieldLists(model.indexes) }
        if !model.relationships.isEmpty { body["relationships"] = .object(rels) }
        if let r = model.renamedFrom { body["renamedFrom"] = .string(r) }
        if !model.uniquenessConstraints.isEmpty { body["unique"] = fieldLists(model.uniquenessConstraints) }
        return body.sortedByKey()
    }

    private static func fieldLists(_ lists: [[String]]) -> JSONValue { .array(lists.map { .array($0.map(JSONValue.string)) }) }

    private static func canonical(_ field: FieldSchema) -> JSONObject {
        var body = JSONObject()
        body["type"] = .string(field.type.rawValue)
        if field.isOptional { body["optional"] = .bool(true) }
        if field.isLazy { body["lazy"] = .bool(true) }
        if field.isUnique { body["unique"] = .bool(true) }
        if field.preservesValueOnDeletion { body["preserveValueOnDeletion"] = .bool(true) }
        if let d = field.defaultValue { body["default"] = d.canonicalized() }
        if field.type == .enum { body["values"] = .array(field.enumValues) }
        if let r = field.renamedFrom { body["renamedFrom"] = .string(r) }
        return body.sortedByKey()
    }

    private static func canonical(_ rel: RelationshipSchema) -> JSONObject {
        var body = JSONObject()
        body["to"] = .string(rel.target)
        if rel.isToMany { body["many"] = .bool(true) }
        if let i = rel.inverse { body["inverse"] = .string(i) }
        if rel.deleteRule != .nullify { body["deleteRule"] = .string(rel.deleteRule.rawValue) }
        if let r = rel.renamedFrom { body["renamedFrom"] = .string(r) }
        return body.sortedByKey()
    }
}
