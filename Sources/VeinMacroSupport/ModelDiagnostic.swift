import SwiftDiagnostics
import SwiftSyntax

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
    case indexOfAnotherModel(model: String, written: String)
    case indexNotAList(model: String, written: String)
    case indexNotAKeyPath(model: String, written: String)
    case indexPathPastAProperty(model: String, written: String, property: String)

    var message: String {
        switch self {
        case .notAClass(let kind):
            return "@Model applies to a final class, not to \(kind == "enum" ? "an" : "a") \(kind)"
        case .notFinal(let name):
            return "@Model class '\(name)' must be final (a subclass could not add persisted properties)"
        case .unsupportedType(let property, let type, let replacement):
            let instead = replacement.map { "; use \($0)" } ?? ""
            return "'\(property)' has type '\(type)', which Vein does not store\(instead) "
                + "(field types: String, Int, Double, Bool, Date, Data, UUID, String or Int enums, Codable values, optionals of these)"
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
        case .indexOfAnotherModel(let model, let written):
            return "#Index<\(written)> in '\(model)': an index is declared in the class it indexes; write #Index<\(model)>"
        case .indexNotAList(let model, let written):
            return "#Index takes lists of key paths of '\(model)' such as [\\.title]; '\(written)' is not one"
        case .indexNotAKeyPath(let model, let written):
            return "'\(written)' in #Index is not a key path of '\(model)' such as \\.title"
        case .indexPathPastAProperty(let model, let written, let property):
            return "#Index key path '\(written)' goes past '\(property)': an index covers fields and to-one relationships "
                + "of '\(model)' itself; write \\.\(property)"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "VeinMacros", id: "\(self)".prefix { $0 != "(" }.description) }
    var severity: DiagnosticSeverity { .error }
}

struct ModelFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "VeinMacros", id: message) }
}
