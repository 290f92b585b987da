import SwiftDiagnostics
import SwiftSyntax

/// A `@Transient var`, which `@Transient` turns into a computed property over lock-protected storage (a
/// model is Sendable, so it cannot keep a mutable stored property). Only syntax, as `PropertyInfo`.
struct TransientProperty {
    let name: String
    let type: TypeSyntax?
    let initializer: InitializerClauseSyntax?
    let binding: PatternBindingSyntax

    /// A stored `var` marked `@Transient`; nil for anything else (a `let` stays as it is).
    init?(_ declaration: VariableDeclSyntax) {
        guard declaration.attribute(named: "Transient") != nil,
              declaration.bindingSpecifier.tokenKind == .keyword(.var),
              !declaration.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }),
              declaration.bindings.count == 1, let binding = declaration.bindings.first, binding.accessorBlock == nil,
              let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        self.name = pattern.identifier.unquotedText
        self.type = binding.typeAnnotation?.type
        self.initializer = binding.initializer
        self.binding = binding
    }

    /// The storage's name: a prefix of its own, so it cannot meet what @Model adds (`_$backing`).
    var storageName: String { "_$transient_" + name }

    /// What stops the conversion: the type must be written (a computed property needs it), and the value
    /// must have a start (an optional starts as nil).
    var problem: Diagnostic? {
        guard let type else {
            let suggested = initializer.flatMap { Self.evidentType(of: $0.value) }
            let fixIts = suggested.map { suggested -> [FixIt] in
                let annotated = binding.with(\.pattern, binding.pattern.with(\.trailingTrivia, []))
                    .with(\.typeAnnotation, TypeAnnotationSyntax(colon: .colonToken(trailingTrivia: .space),
                                                                 type: TypeSyntax(stringLiteral: suggested)
                                                                     .with(\.trailingTrivia, binding.pattern.trailingTrivia)))
                return [FixIt(message: ModelFixIt(message: "write ': \(suggested)'"),
                              changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))])]
            } ?? []
            return Diagnostic(node: binding.pattern, message: ModelDiagnostic.transientWithoutType(property: name, suggested: suggested),
                              fixIts: fixIts)
        }
        if initializer == nil && FieldTypeSyntax.wrappedOfOptional(type) == nil {
            return Diagnostic(node: binding.pattern, message: ModelDiagnostic.transientWithoutInitialValue(property: name))
        }
        return nil
    }

    /// The type of a literal or of an initializer call (`0`, `"a"`, `Cache()`, `[String: Int]()`), which
    /// the fix-it can write; nil when the expression alone does not tell.
    static func evidentType(of value: ExprSyntax) -> String? {
        if value.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if value.is(FloatLiteralExprSyntax.self) { return "Double" }
        if value.is(StringLiteralExprSyntax.self) { return "String" }
        if value.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if let prefix = value.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return evidentType(of: prefix.expression)
        }
        guard let call = value.as(FunctionCallExprSyntax.self) else { return nil }
        let callee = call.calledExpression
        if callee.is(ArrayExprSyntax.self) || callee.is(DictionaryExprSyntax.self) { return callee.trimmedDescription }
        // A capitalized name is a type by Swift's conventions; a function would be lowercase.
        if let reference = callee.as(DeclReferenceExprSyntax.self), reference.baseName.text.first?.isUppercase == true {
            return callee.trimmedDescription
        }
        return nil
    }
}
