import Foundation

extension ModelObject {
    /// The object as the JSON of docs/interchange.md: `_id` (the row key), then fields and relationships in schema order; dates in ISO
    /// 8601 with microseconds, data in base64, a to-one as an id, a to-many as an array of ids.
    public func jsonObject(includeLazy: Bool = true) throws -> JSONObject {
        var object = JSONObject()
        object[StoreFormat.current.keyColumn] = .string(id)
        for (i, column) in layout.columns.enumerated() {
            if layout.isLazy[i] && !includeLazy { continue }
            let value = try self[column]
            if layout.fieldSchemas[i] != nil {
                object[column] = layout.codecs[i]!.json(value)
            } else if case .array(let ids) = value {
                object[column] = .array(ids.map { .string($0.stringValue ?? "") })
            } else {
                object[column] = value.stringValue.map(JSONValue.string) ?? .null
            }
        }
        return object
    }
}
