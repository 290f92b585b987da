import SwiftDiagnostics
import SwiftSyntax
import VeinFieldTypes

/// Every misuse @Model reports at compile time. The messages are part of the product: the macro tests
/// check their text.
enum ModelDiagnostic: DiagnosticMessage {
    case notAClass(kind: String)
    case notFinal(name: String)
    case unsupportedType(property: String, type: String, replacement: String?)
    case missingTypeAnnotation(property: String)
    case relationshipToFieldType(property: String, type: String)
    case toOneNotOptional(property: String, type: String)
    case relationshipNotAModelType(property: String, type: String)
    case inverseNotAKeyPath(property: String)
    case keyPathListOfAnotherModel(macro: KeyPathListMacro, model: String, written: String)
    case keyPathListNotAList(macro: KeyPathListMacro, model: String, written: String)
    case keyPathListElementNotAKeyPath(macro: KeyPathListMacro, model: String, written: String)
    case keyPathPastAProperty(macro: KeyPathListMacro, model: String, written: String, property: String)
    case uniqueNotAField(model: String, written: String, combination: Bool)
    case transientWithoutType(property: String, suggested: String?)
    case transientWithoutInitialValue(property: String)

    /// The field types the standard library and Foundation define, by their Swift names, from the table
    /// the engine reads too (VeinFieldTypes); JSONValue is VeinCore's, and any Codable value stands for it.
    static let standardFieldTypes = FieldType.allCases.filter { ["Swift", "Foundation"].contains($0.facts.swiftModule) }
        .compactMap(\.facts.swiftName).joined(separator: ", ")

    var message: String {
        switch self {
        case .notAClass(let kind):
            return "@Model applies to a final class, not to \(kind == "enum" ? "an" : "a") \(kind)"
        case .notFinal(let name):
            return "@Model class '\(name)' must be final (a subclass could not add persisted properties)"
        case .unsupportedType(let property, let type, let replacement):
            let instead = replacement.map { "; use \($0)" } ?? ""
            return "'\(property)' has type '\(type)', which Vein does not store\(instead) "
                + "(field types: \(Self.standardFieldTypes), String or Int enums, Codable values, optionals of these)"
        case .missingTypeAnnotation(let property):
            return "persisted property '\(property)' needs a written type (Vein reads the type from the declaration)"
        case .relationshipToFieldType(let property, let type):
            return "@Relationship '\(property)' has type '\(type)', a field type: a relationship points to @Model classes"
        case .toOneNotOptional(let property, let type):
            return "to-one @Relationship '\(property)' must be optional ('\(type)?'): a new or unlinked object points to nothing"
        case .relationshipNotAModelType(let property, let type):
            return "@Relationship '\(property)' has type '\(type)': a relationship is 'Model?' (to-one) or '[Model]' (to-many)"
        case .inverseNotAKeyPath(let property):
            return "the inverse of @Relationship '\(property)' must be a key path such as \\Other.property"
        case .keyPathListOfAnotherModel(let macro, let model, let written):
            return "#\(macro.rawValue)<\(written)> in '\(model)': \(macro.declares); write #\(macro.rawValue)<\(model)>"
        case .keyPathListNotAList(let macro, let model, let written):
            return "#\(macro.rawValue) takes lists of key paths of '\(model)' such as [\\.title]; '\(written)' is not one"
        case .keyPathListElementNotAKeyPath(let macro, let model, let written):
            return "'\(written)' in #\(macro.rawValue) is not a key path of '\(model)' such as \\.title"
        case .keyPathPastAProperty(let macro, let model, let written, let property):
            return "#\(macro.rawValue) key path '\(written)' goes past '\(property)': \(macro.covers) "
                + "of '\(model)' itself; write \\.\(property)"
        case .uniqueNotAField(let model, let written, false):
            return "#Unique key path '\(written)' is not a persisted field of '\(model)': a uniqueness constraint covers "
                + "fields, not relationships or properties Vein does not store"
        case .uniqueNotAField(let model, let written, true):
            return "#Unique key path '\(written)' is not a persisted field or to-one relationship of '\(model)': a combination "
                + "of values is unique over stored columns, not to-many relationships or properties Vein does not store"
        case .transientWithoutType(let property, let suggested):
            let example = suggested.map { " ('\(property): \($0)')" } ?? ""
            return "@Transient property '\(property)' needs a written type\(example): Vein keeps its value in lock-protected "
                + "storage, so that the model stays Sendable, and Swift needs the type of such a property"
        case .transientWithoutInitialValue(let property):
            return "@Transient property '\(property)' needs an initial value: Vein does not store it, and a fetched object "
                + "starts with that value"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "VeinMacros", id: "\(self)".prefix { $0 != "(" }.description) }
    var severity: DiagnosticSeverity { .error }
}

struct ModelFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "VeinMacros", id: message) }
}
