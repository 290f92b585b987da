import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model` on a final class (SPEC §10). It generates, from the declaration alone (no reflection):
/// - `_$backing`, where the values live: pending values before the object is inserted, then the engine's
///   `ModelObject` in its context;
/// - an accessor pair on each persisted property (through `@_PersistedProperty`) that reads and writes
///   through the backing (lazy fields are read from the store on first access by the engine);
/// - `_$modelName` and `_$schema`, the model's field and relationship table, which is its part of the schema manifest;
/// - `_$propertyNames`, each persisted property's key path and name (sorts and predicates on key paths
///   are translated through it, without reflection);
/// - `init(_$object:)`, the initializer for rows a context fetches;
/// - for each to-many with an inverse, a query of its members pushed down to SQL
///   (`post.attachments(where:sort:)`);
/// - the `PersistentModel` and `Sendable` conformances.
public enum ModelMacro {}

extension ModelMacro: MemberMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let model = try validatedClass(declaration, node: node, context: context, report: true),
              let properties = persistedProperties(of: model, context: context) else { return [] }
        let access = model.modifiers.contains { ["public", "open"].contains($0.name.text) } ? "public " : ""
        let name = model.name.text
        let modelName = model.name.unquotedText
        let entries = properties.map { schemaEntry($0, modelName: name) }
        let table = entries.isEmpty ? "[]" : "[\n" + entries.map { "    \($0)," }.joined(separator: "\n") + "\n]"
        let keyPaths = properties.isEmpty ? "[:]"
            : "[\n" + properties.map { "    \\\(name).\($0.identifier): \"\($0.name)\"," }.joined(separator: "\n") + "\n]"
        let indexes = indexLists(of: model, context: context)
        let tableArguments = (indexes.isEmpty ? ""
            : ", indexes: [" + indexes.map { "[" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }.joined(separator: ", ") + "]")
            + (node.stringArgument(labeled: "originalName").map { ", originalName: \"\($0)\"" } ?? "")
        return [
            "\(raw: access)let _$backing = VeinCore.ModelBacking()",
            "\(raw: access)static var _$modelName: String { \(literal: modelName) }",
            "\(raw: access)static let _$schema = VeinCore.ModelDescription(name: \(literal: modelName), properties: \(raw: table)\(raw: tableArguments))",
            // Computed: key paths are not Sendable, so a stored static table would not be concurrency-safe.
            "\(raw: access)static var _$propertyNames: [PartialKeyPath<\(raw: name)>: String] { \(raw: keyPaths) }",
            """
            /// A row a context fetched: its values stay in the engine's object.
            \(raw: access)init(_$object object: VeinCore.ModelObject) {
                _$backing.attach(object)
            }
            """,
        ] + properties.compactMap { property in
            queryAccess(property, model: model).flatMap { relatedQuery(property, modelName: name, access: $0) }
        }
    }

    /// The access of the query generated for `property`: the lower of the model's and the property's (a
    /// public query could not name an internal member type, nor show an internal relationship); none for
    /// a private or fileprivate property, whose members are not for code outside the model to query.
    static func queryAccess(_ property: PropertyInfo, model: ClassDeclSyntax) -> String? {
        func level(_ modifiers: DeclModifierListSyntax) -> Int? {
            // `private(set)` and the like set the setter's access only.
            let names = modifiers.filter { $0.detail == nil }.map(\.name.text)
            if names.contains(where: { ["private", "fileprivate"].contains($0) }) { return nil }
            if names.contains(where: { ["public", "open"].contains($0) }) { return 2 }
            return names.contains("package") ? 1 : 0
        }
        guard let propertyLevel = level(property.declaration.modifiers) else { return nil }
        return ["", "package ", "public "][min(propertyLevel, level(model.modifiers) ?? 0)]
    }

    /// `post.attachments(where:sort:)` for a to-many with an inverse: its members queried in SQL (see
    /// `PersistentModel.related`). Named after the relationship, as SPEC §10 writes it.
    static func relatedQuery(_ property: PropertyInfo, modelName: String, access: String) -> DeclSyntax? {
        guard let relationship = property.relationship, relationship.argument(labeled: "inverse") != nil,
              let target = FieldTypeSyntax.elementOfArray(property.type)?.trimmedDescription else { return nil }
        return """
            /// The members of `\(raw: property.name)` that `predicate` selects, sorted by `sort` (with none, in the
            /// relationship's order), selected in SQL.
            \(raw: access)func \(raw: property.identifier)(where predicate: VeinCore.MemberPredicate<\(raw: target)>? = nil, sort: [VeinCore.MemberSortDescriptor<\(raw: target)>] = []) throws -> [\(raw: target)] {
                try related(\\\(raw: modelName).\(raw: property.identifier), where: predicate, sort: sort)
            }
            """
    }

    /// The key paths' names of each `#Index` in the class, in order. What the compiler accepts but is not an
    /// index of this class (`#Index<Other>`, `\.author.name`, an argument that is not a list of key paths) is
    /// diagnosed, never dropped or shortened in silence.
    static func indexLists(of model: ClassDeclSyntax, context: some MacroExpansionContext) -> [[String]] {
        let className = model.name.text
        var lists: [[String]] = []
        for index in model.memberBlock.members.compactMap({ $0.decl.as(MacroExpansionDeclSyntax.self) })
            where index.macroName.text == "Index" {
            // The class by its name, `Self`, or its name qualified (`Schema.Post`).
            if let argument = index.genericArgumentClause?.arguments.first,
               ![className, "Self"].contains(argument.trimmedDescription), !argument.trimmedDescription.hasSuffix("." + className) {
                context.diagnose(Diagnostic(node: argument, message: ModelDiagnostic.indexOfAnotherModel(
                    model: className, written: argument.trimmedDescription)))
                continue
            }
            for argument in index.arguments {
                guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                    context.diagnose(Diagnostic(node: argument.expression, message: ModelDiagnostic.indexNotAList(
                        model: className, written: argument.expression.trimmedDescription)))
                    continue
                }
                var names: [String] = []
                for element in array.elements {
                    let written = element.expression.trimmedDescription
                    guard let keyPath = element.expression.as(KeyPathExprSyntax.self),
                          let first = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self) else {
                        context.diagnose(Diagnostic(node: element.expression, message: ModelDiagnostic.indexNotAKeyPath(
                            model: className, written: written)))
                        continue
                    }
                    guard keyPath.components.count == 1 else {
                        context.diagnose(Diagnostic(node: element.expression, message: ModelDiagnostic.indexPathPastAProperty(
                            model: className, written: written, property: first.declName.baseName.text)))
                        continue
                    }
                    names.append(first.declName.baseName.unquotedText)
                }
                lists.append(names)
            }
        }
        return lists
    }

    /// One entry of the field and relationship table.
    static func schemaEntry(_ property: PropertyInfo, modelName: String) -> String {
        var options: [String] = []
        if let relationship = property.relationship {
            let many = FieldTypeSyntax.elementOfArray(property.type)
            let target = (many ?? FieldTypeSyntax.wrappedOfOptional(property.type) ?? property.type).trimmedDescription
            if let inverse = relationship.argument(labeled: "inverse")?.as(KeyPathExprSyntax.self),
               let inverseName = inverse.components.last?.component.as(KeyPathPropertyComponentSyntax.self)?.declName.baseName.unquotedText {
                options.append("inverse: VeinCore.Inverse.named(\"\(inverseName)\", \(inverse.trimmedDescription), from: \(modelName).self)")
            }
            if let rule = relationship.argument(labeled: "deleteRule") { options.append("deleteRule: \(rule.trimmedDescription)") }
            if let original = property.originalName { options.append("originalName: \"\(original)\"") }
            let tail = options.isEmpty ? "" : ", " + options.joined(separator: ", ")
            return ".\(many == nil ? "toOne" : "toMany")(\"\(property.name)\", \(target).self\(tail))"
        }
        if property.isLazy { options.append("lazy: true") }
        if property.isUnique { options.append("unique: true") }
        if let original = property.originalName { options.append("originalName: \"\(original)\"") }
        if let initial = property.initializer { options.append("default: \(initial.value.trimmedDescription)") }
        let tail = options.isEmpty ? "" : ", " + options.joined(separator: ", ")
        return ".field(\"\(property.name)\", (\(property.type.trimmedDescription)).self\(tail))"
    }

    /// The class, when @Model is on a final class; otherwise nil, with the diagnostic when `report`.
    static func validatedClass(_ declaration: some DeclGroupSyntax, node: AttributeSyntax, context: some MacroExpansionContext,
                               report: Bool) throws -> ClassDeclSyntax? {
        guard let model = declaration.as(ClassDeclSyntax.self) else {
            if report {
                let kind = declaration.is(StructDeclSyntax.self) ? "struct"
                    : declaration.is(EnumDeclSyntax.self) ? "enum"
                    : declaration.is(ActorDeclSyntax.self) ? "actor"
                    : declaration.is(ProtocolDeclSyntax.self) ? "protocol" : "extension"
                var fixIts: [FixIt] = []
                if let structDecl = declaration.as(StructDeclSyntax.self) {
                    fixIts.append(FixIt(message: ModelFixIt(message: "make it a final class"), changes: [
                        .replace(oldNode: Syntax(structDecl.structKeyword),
                                 newNode: Syntax(TokenSyntax.keyword(.class, leadingTrivia: "final ", trailingTrivia: .space)))
                    ]))
                }
                context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass(kind: kind), fixIts: fixIts))
            }
            return nil
        }
        guard model.modifiers.contains(where: { $0.name.text == "final" }) else {
            if report {
                let fixIt = FixIt(message: ModelFixIt(message: "add 'final'"), changes: [
                    .replace(oldNode: Syntax(model.classKeyword),
                             newNode: Syntax(TokenSyntax.keyword(.class, leadingTrivia: model.classKeyword.leadingTrivia + "final ",
                                                                 trailingTrivia: model.classKeyword.trailingTrivia)))
                ])
                context.diagnose(Diagnostic(node: model.classKeyword, message: ModelDiagnostic.notFinal(name: model.name.text),
                                            fixIts: [fixIt]))
            }
            return nil
        }
        return model
    }

    /// The persisted properties in declaration order (their order is the column order), after checking
    /// what the syntax alone can tell; nil when a misuse was reported (then nothing is generated).
    static func persistedProperties(of model: ClassDeclSyntax, context: some MacroExpansionContext) -> [PropertyInfo]? {
        var properties: [PropertyInfo] = []
        var failed = false
        for member in model.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if let binding = PropertyInfo.lacksTypeAnnotation(variable) {
                context.diagnose(Diagnostic(node: binding.pattern,
                                            message: ModelDiagnostic.missingTypeAnnotation(property: binding.pattern.trimmedDescription)))
                failed = true
                continue
            }
            guard let property = PropertyInfo(variable) else { continue }
            if let problem = problem(with: property) {
                context.diagnose(problem)
                failed = true
                continue
            }
            properties.append(property)
        }
        return failed ? nil : properties
    }

    static func problem(with property: PropertyInfo) -> Diagnostic? {
        let typeText = property.type.trimmedDescription
        if let relationship = property.relationship {
            if FieldTypeSyntax.isPlainFieldType(property.type) {
                return Diagnostic(node: property.type, message: ModelDiagnostic.relationshipToFieldType(property: property.name, type: typeText),
                                  fixIts: [FixIt(message: ModelFixIt(message: "remove @Relationship"),
                                                 changes: [.replaceText(range: relationship.positionAfterSkippingLeadingTrivia..<relationship.endPosition, with: "",
                                                                        in: Syntax(relationship))])])
            }
            if let inverse = relationship.argument(labeled: "inverse"), !inverse.is(KeyPathExprSyntax.self) {
                return Diagnostic(node: inverse, message: ModelDiagnostic.inverseNotAKeyPath(property: property.name))
            }
            if FieldTypeSyntax.elementOfArray(property.type) == nil && FieldTypeSyntax.wrappedOfOptional(property.type) == nil {
                guard property.type.is(IdentifierTypeSyntax.self) || property.type.is(MemberTypeSyntax.self) else {
                    return Diagnostic(node: property.type, message: ModelDiagnostic.relationshipNotAModelType(property: property.name, type: typeText))
                }
                let optional = TypeSyntax(OptionalTypeSyntax(wrappedType: property.type.trimmed))
                    .with(\.leadingTrivia, property.type.leadingTrivia).with(\.trailingTrivia, property.type.trailingTrivia)
                return Diagnostic(node: property.type, message: ModelDiagnostic.toOneNotOptional(property: property.name, type: typeText),
                                  fixIts: [FixIt(message: ModelFixIt(message: "make it '\(typeText)?'"),
                                                 changes: [.replace(oldNode: Syntax(property.type), newNode: Syntax(optional))])])
            }
            return nil
        }
        if let (part, replacement) = FieldTypeSyntax.unsupportedPart(of: property.type) {
            let message = ModelDiagnostic.unsupportedType(property: property.name, type: part.trimmedDescription, replacement: replacement)
            let fixIts = replacement.map { replacement in
                [FixIt(message: ModelFixIt(message: "use \(replacement)"),
                       changes: [.replace(oldNode: Syntax(part), newNode: Syntax(TypeSyntax(stringLiteral: replacement).with(\.leadingTrivia, part.leadingTrivia).with(\.trailingTrivia, part.trailingTrivia)))])]
            } ?? []
            return Diagnostic(node: part, message: message, fixIts: fixIts)
        }
        return nil
    }
}

extension ModelMacro: MemberAttributeMacro {
    /// Puts `@_PersistedProperty` (the accessors) on each persisted property, with a field's position
    /// among the model's columns (`column: N`: the fields in declaration order, then the relationships, as
    /// `ModelDescription` orders them), so that its accessors reach the column by position.
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        guard let model = try validatedClass(declaration, node: node, context: context, report: false),
              let variable = member.as(VariableDeclSyntax.self), let property = PropertyInfo(variable),
              problem(with: property) == nil, variable.attribute(named: "_PersistedProperty") == nil
        else { return [] }
        guard property.relationship == nil, let column = fieldColumn(of: variable, in: model) else { return ["@_PersistedProperty"] }
        return ["@_PersistedProperty(column: \(raw: column))"]
    }

    /// The position of the field `variable` declares among the model's fields (declaration order).
    static func fieldColumn(of variable: VariableDeclSyntax, in model: ClassDeclSyntax) -> Int? {
        var column = 0
        for member in model.memberBlock.members {
            guard let other = member.decl.as(VariableDeclSyntax.self), let property = PropertyInfo(other),
                  property.relationship == nil else { continue }
            if other.id == variable.id || other.trimmedDescription == variable.trimmedDescription { return column }
            column += 1
        }
        return nil
    }
}

extension ModelMacro: ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard try validatedClass(declaration, node: node, context: context, report: false) != nil else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): VeinCore.PersistentModel, Sendable {}")]
    }
}
