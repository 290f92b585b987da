/// The field types a manifest declares (docs/store-format.md, "A model's table"), and everything about each that
/// more than one layer needs to know: the engine's codecs, the expression language, `vein schema --swift`,
/// VeinCore's empty values and the @Model macro all read this one table, so a new type is one case here,
/// one codec, and whatever the compiler then asks for.
///
/// A module of its own, with no dependencies, because the macro plugin cannot link the engine.
public enum FieldType: String, CaseIterable, Sendable {
    case string, int, double, bool, date, data, uuid
    case `enum`
    case json

    /// This type's facts. The one `switch` that states them.
    package var facts: FieldTypeFacts {
        switch self {
        case .string:
            FieldTypeFacts(swiftName: "String", swiftModule: "Swift", columnType: "TEXT", jsonForm: "a string",
                           literalExample: "\"text\"", aliases: ["text", "str"])
        case .int:
            FieldTypeFacts(swiftName: "Int", swiftModule: "Swift", columnType: "INTEGER", jsonForm: "an integer",
                           literalExample: "42", aliases: ["integer", "int64", "long"])
        case .double:
            FieldTypeFacts(swiftName: "Double", swiftModule: "Swift", columnType: "REAL", jsonForm: "a number",
                           literalExample: "2.5", aliases: ["float", "real", "number"])
        case .bool:
            FieldTypeFacts(swiftName: "Bool", swiftModule: "Swift", columnType: "INTEGER", jsonForm: "true or false",
                           literalExample: "true", aliases: ["boolean"])
        case .date:
            FieldTypeFacts(swiftName: "Date", swiftModule: "Foundation", columnType: "REAL",
                           jsonForm: "an ISO 8601 date string", literalExample: "#date(\"2026-01-31T12:00:00Z\")",
                           aliases: ["timestamp", "datetime"])
        case .data:
            FieldTypeFacts(swiftName: "Data", swiftModule: "Foundation", columnType: "BLOB", jsonForm: "a base64 string",
                           literalExample: nil, aliases: ["blob", "bytes"])
        case .uuid:
            FieldTypeFacts(swiftName: "UUID", swiftModule: "Foundation", columnType: "TEXT", jsonForm: "a UUID string",
                           literalExample: "UUID(uuidString: \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\")", aliases: [])
        case .enum:
            // The app's own enum; its raw values decide the column (INTEGER for Int, TEXT for String).
            FieldTypeFacts(swiftName: nil, swiftModule: nil, columnType: nil, jsonForm: "one of its values",
                           literalExample: ".someCase", aliases: [])
        case .json:
            FieldTypeFacts(swiftName: "JSONValue", swiftModule: "VeinCore", columnType: "TEXT", jsonForm: "any JSON value",
                           literalExample: nil, aliases: ["object"])
        }
    }
}

/// What one field type is in each place it appears.
package struct FieldTypeFacts: Sendable {
    /// The Swift type a property of this type is declared with; nil for `enum` (the app's own type).
    package let swiftName: String?
    /// The module that defines `swiftName`, for a qualified spelling (`Foundation.Date`).
    package let swiftModule: String?
    /// The declared column type, which is also SQLite's affinity; nil when the field decides (`enum`).
    package let columnType: String?
    /// What an import record or a manifest default gives for it, after "expected".
    package let jsonForm: String
    /// How the expression language writes a value of it; nil when it has no literal.
    package let literalExample: String?
    /// Names other languages and databases use for it, for "did you mean" hints.
    package let aliases: [String]

    /// `Date` and `Foundation.Date`: the spellings by which a declaration names this type.
    package var swiftSpellings: [String] {
        guard let swiftName else { return [] }
        return [swiftName] + (swiftModule.map { ["\($0).\(swiftName)"] } ?? [])
    }
}
