import SwiftSyntax

/// What @Model reads from one persisted property's declaration: its name, its written type and the
/// marker attributes on it. Only syntax: the macro never sees other declarations' types, so whatever
/// needs them (is `Post` a model, is `Address` Codable) is left to the type checker through the code
/// the macro generates.
struct PropertyInfo {
    /// The name in the manifest (without the backticks a keyword is written with).
    let name: String
    /// The name as Swift code writes it (`` `default` ``).
    let identifier: String
    let type: TypeSyntax
    let isLazy: Bool
    let isUnique: Bool
    let preservesValueOnDeletion: Bool
    let originalName: String?
    /// The `@Relationship` attribute, when the property is a relationship.
    let relationship: AttributeSyntax?
    let initializer: InitializerClauseSyntax?
    let binding: PatternBindingSyntax
    let declaration: VariableDeclSyntax
    /// A `let`: Swift lets no macro give it accessors, so it stays a stored property, which the
    /// instance's initializer sets and `init(_$object:)` sets from the row (see `LetProperties`).
    let isLet: Bool

    /// The stored properties @Model persists: a `var`, or a `let` without an initial value (one with it
    /// is a constant of the class); not static, no accessors of their own, no `@Transient`. Nil for any
    /// other declaration.
    init?(_ declaration: VariableDeclSyntax) {
        let isLet = declaration.bindingSpecifier.tokenKind == .keyword(.let)
        guard declaration.bindingSpecifier.tokenKind == .keyword(.var)
                || (isLet && declaration.bindings.first?.initializer == nil),
              !declaration.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }),
              declaration.bindings.count == 1, let binding = declaration.bindings.first,
              binding.accessorBlock == nil,
              let pattern = binding.pattern.as(IdentifierPatternSyntax.self),
              !pattern.identifier.text.hasPrefix("_$"),
              declaration.attribute(named: "Transient") == nil
        else { return nil }
        guard let type = binding.typeAnnotation?.type else { return nil }
        self.name = pattern.identifier.unquotedText
        self.identifier = pattern.identifier.text
        // Not trimmed: a trimmed copy is a new tree, and diagnostics and fix-its must point into the source.
        self.type = type
        let attribute = declaration.attribute(named: "Attribute")
        let options = attribute?.optionNames ?? []
        self.isLazy = declaration.attribute(named: "LazyField") != nil || options.contains("externalStorage")
        self.isUnique = declaration.attribute(named: "Unique") != nil || options.contains("unique")
        self.preservesValueOnDeletion = options.contains("preserveValueOnDeletion")
        self.originalName = attribute?.stringArgument(labeled: "originalName")
        self.relationship = declaration.attribute(named: "Relationship")
        self.initializer = binding.initializer
        self.binding = binding
        self.declaration = declaration
        self.isLet = isLet
    }

    /// A stored `var` @Model cannot persist because its type is not written out (`var n = 0`).
    static func lacksTypeAnnotation(_ declaration: VariableDeclSyntax) -> PatternBindingSyntax? {
        guard declaration.bindingSpecifier.tokenKind == .keyword(.var),
              !declaration.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }),
              declaration.attribute(named: "Transient") == nil
        else { return nil }
        return declaration.bindings.first { $0.accessorBlock == nil && $0.typeAnnotation == nil }
    }
}

extension VariableDeclSyntax {
    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let written = attribute.attributeName.trimmedDescription
            if written == name || written == "VeinCore.\(name)" { return attribute }
        }
        return nil
    }
}

extension AttributeSyntax {
    var labeledArguments: LabeledExprListSyntax? { arguments?.as(LabeledExprListSyntax.self) }

    func argument(labeled label: String) -> ExprSyntax? {
        labeledArguments?.first { $0.label?.text == label }?.expression
    }

    /// The names of the unlabeled options (`@Attribute(.unique, .externalStorage)`, or spelled with their
    /// type, `AttributeOption.unique`); the compiler has checked that each is one.
    var optionNames: Set<String> {
        Set((labeledArguments ?? []).filter { $0.label == nil }.compactMap {
            $0.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
        })
    }

    /// The text of a string-literal argument without interpolation.
    func stringArgument(labeled label: String) -> String? {
        guard let literal = argument(labeled: label)?.as(StringLiteralExprSyntax.self),
              literal.segments.count == 1,
              let segment = literal.segments.first?.as(StringSegmentSyntax.self) else { return nil }
        return segment.content.text
    }
}

extension TokenSyntax {
    /// The identifier without the backticks that let a keyword be a name.
    var unquotedText: String {
        let text = self.text
        return text.count > 1 && text.hasPrefix("`") && text.hasSuffix("`") ? String(text.dropFirst().dropLast()) : text
    }
}
