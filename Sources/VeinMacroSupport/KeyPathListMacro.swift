import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Index<Model>([\.a], [\.b, \.c])` and `#Unique<Model>([\.a], [\.b])`: freestanding macros inside an
/// `@Model` class whose arguments are lists of the class's own key paths, which @Model reads from the
/// declaration (the compiler has type-checked them against the model).
enum KeyPathListMacro: String {
    case index = "Index"
    case unique = "Unique"

    /// What one list declares, for the messages.
    var declares: String {
        switch self {
        case .index: return "an index is declared in the class it indexes"
        case .unique: return "a uniqueness constraint is declared in the class it constrains"
        }
    }

    /// What a list may name, for the messages.
    var covers: String {
        switch self {
        case .index: return "an index covers fields and to-one relationships"
        case .unique: return "a uniqueness constraint covers fields"
        }
    }

    /// The key paths' names of each list of each of these macros in the class, in order. What the compiler
    /// accepts but is not a list of this class's properties (`#Index<Other>`, `\.author.name`, an argument
    /// that is not a list of key paths) is diagnosed, never dropped or shortened in silence.
    func lists(in model: ClassDeclSyntax, context: some MacroExpansionContext) -> [(names: [String], list: ArrayExprSyntax)] {
        let className = model.name.text
        var lists: [(names: [String], list: ArrayExprSyntax)] = []
        for declaration in model.memberBlock.members.compactMap({ $0.decl.as(MacroExpansionDeclSyntax.self) })
            where declaration.macroName.text == rawValue {
            // The class by its name, `Self`, or its name qualified (`Schema.Post`).
            if let argument = declaration.genericArgumentClause?.arguments.first,
               ![className, "Self"].contains(argument.trimmedDescription), !argument.trimmedDescription.hasSuffix("." + className) {
                context.diagnose(Diagnostic(node: argument, message: ModelDiagnostic.keyPathListOfAnotherModel(
                    macro: self, model: className, written: argument.trimmedDescription)))
                continue
            }
            for argument in declaration.arguments {
                guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                    context.diagnose(Diagnostic(node: argument.expression, message: ModelDiagnostic.keyPathListNotAList(
                        macro: self, model: className, written: argument.expression.trimmedDescription)))
                    continue
                }
                lists.append((names(in: array, model: className, context: context), array))
            }
        }
        return lists
    }

    private func names(in array: ArrayExprSyntax, model: String, context: some MacroExpansionContext) -> [String] {
        var names: [String] = []
        for element in array.elements {
            let written = element.expression.trimmedDescription
            guard let keyPath = element.expression.as(KeyPathExprSyntax.self),
                  let first = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self) else {
                context.diagnose(Diagnostic(node: element.expression, message: ModelDiagnostic.keyPathListElementNotAKeyPath(
                    macro: self, model: model, written: written)))
                continue
            }
            guard keyPath.components.count == 1 else {
                context.diagnose(Diagnostic(node: element.expression, message: ModelDiagnostic.keyPathPastAProperty(
                    macro: self, model: model, written: written, property: first.declName.baseName.text)))
                continue
            }
            names.append(first.declName.baseName.unquotedText)
        }
        return names
    }
}

/// `#Index` and `#Unique`: @Model reads their key paths from the declaration; by themselves they declare
/// nothing.
public enum IndexMacro: DeclarationMacro {
    public static func expansion(of node: some FreestandingMacroExpansionSyntax,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] { [] }
}
