import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model` on a final class (docs/app-guide.md). It generates, from the declaration alone (no reflection):
/// - `_$backing`, where the values live: pending values before the object is inserted, then the engine's
///   `ModelObject` in its context;
/// - an accessor pair on each persisted property (through `@_PersistedProperty`) that reads and writes
///   through the backing (lazy fields are read from the store on first access by the engine);
/// - `_$modelName` and `_$schema`, the model's field and relationship table, which is its part of the schema manifest;
/// - `_$propertyNames`, each persisted property's key path and name (sorts and predicates on key paths
///   are translated through it, without reflection);
/// - a stored marker per persisted `var` (`AssignedMarker`), so that an initializer that leaves one
///   unassigned does not compile;
/// - `init(_$object:)`, the initializer for rows a context fetches;
/// - for each to-many with an inverse, a query of its members pushed down to SQL
///   (`post.attachments(where:sort:)`);
/// - the `PersistentModel` and `Sendable` conformances.
public enum ModelMacro {}

extension ModelMacro: MemberMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let model = try validatedClass(declaration, node: node, context: context, report: true) else { return [] }
        // With a misuse reported, the members are still generated for the properties without one: the
        // other properties' accessors need them, and the misuse is then the only error.
        let (properties, problems) = persistedProperties(of: model)
        for problem in problems { context.diagnose(problem) }
        let unique = uniqueConstraints(of: model, context: context)
        let access = model.modifiers.contains { ["public", "open"].contains($0.name.text) } ? "public " : ""
        let name = model.name.text
        let modelName = model.name.unquotedText
        let columns = fieldColumns(of: model)
        let entries = properties.map { schemaEntry($0, modelName: name, unique: unique.fields.contains($0.name)) }
        let table = entries.isEmpty ? "[]" : "[\n" + entries.map { "    \($0)," }.joined(separator: "\n") + "\n]"
        let keyPaths = properties.isEmpty ? "[:]"
            : "[\n" + properties.map { "    \\\(name).\($0.identifier): \"\($0.name)\"," }.joined(separator: "\n") + "\n]"
        let indexes = KeyPathListMacro.index.lists(in: model, context: context).map(\.names)
        let tableArguments = listArgument("indexes", indexes) + listArgument("uniquenessConstraints", unique.combinations)
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
                _$backing.attach(object)\(raw: AssignedMarker.initializations(properties))\(raw: LetProperties.assignmentsFromRow(properties, columns: columns))
            }
            """,
        ] + [LetProperties.pendingValuesMember(properties, columns: columns, access: access)].compactMap { $0 }
          + properties.flatMap { property -> [DeclSyntax] in
            guard let access = queryAccess(property, model: model),
                  let query = relatedQuery(property, modelName: name, access: access) else { return [] }
            return [query, HelperSpellings.relatedQueryAlias(property, access: access)]
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
    /// `PersistentModel.related`). Named after the relationship, as docs/app-guide.md writes it.
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

    /// `, label: [["a"], ["b", "c"]]`, or nothing for no lists.
    static func listArgument(_ label: String, _ lists: [[String]]) -> String {
        guard !lists.isEmpty else { return "" }
        let written: [String] = lists.map { list in "[" + list.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
        return ", \(label): [" + written.joined(separator: ", ") + "]"
    }

    /// What `#Unique` declares: a list of one field makes that field unique (as `@Attribute(.unique)`); a
    /// list of several is a compound constraint, the manifest's model-level `unique`, whose fields may
    /// include to-one relationships (a written `@Relationship` to-many is diagnosed; one the type
    /// checker infers, by the manifest's check). A key path to anything but a persisted property is
    /// diagnosed. A property with a misuse of its own counts here: its own diagnostic says what is wrong.
    static func uniqueConstraints(of model: ClassDeclSyntax, context: some MacroExpansionContext)
        -> (fields: Set<String>, combinations: [[String]]) {
        let persisted = model.memberBlock.members.compactMap { $0.decl.as(VariableDeclSyntax.self).flatMap(PropertyInfo.init) }
        var fields: Set<String> = [], combinations: [[String]] = []
        for (list, array) in KeyPathListMacro.unique.lists(in: model, context: context) {
            // An element that is not a key path has its diagnostic already.
            guard list.count == array.elements.count else { continue }
            let single = Set(list).count == 1
            var covered = true
            for (name, element) in zip(list, array.elements) {
                let property = persisted.first { $0.name == name }
                let isToMany = property.map { $0.relationship != nil && FieldTypeSyntax.elementOfToMany($0.type) != nil } ?? false
                guard let property, !single || property.relationship == nil, !isToMany else {
                    context.diagnose(Diagnostic(node: element.expression, message: ModelDiagnostic.uniqueNotAField(
                        model: model.name.text, written: element.expression.trimmedDescription, combination: !single)))
                    covered = false
                    continue
                }
            }
            guard covered, let first = list.first else { continue }
            if single { fields.insert(first) } else { combinations.append(list) }
        }
        return (fields, combinations)
    }

    /// One entry of the field and relationship table.
    static func schemaEntry(_ property: PropertyInfo, modelName: String, unique: Bool = false) -> String {
        var options: [String] = []
        if let relationship = property.relationship {
            let many = FieldTypeSyntax.elementOfToMany(property.type)
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
        if property.isUnique || unique { options.append("unique: true") }
        if property.preservesValueOnDeletion { options.append("preserveValueOnDeletion: true") }
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

    /// The persisted properties in declaration order (their order is the column order) that pass the
    /// checks the syntax alone allows, and the misuses found (a persisted property that fails is left out;
    /// a `@Transient var` that cannot be converted too).
    static func persistedProperties(of model: ClassDeclSyntax) -> (properties: [PropertyInfo], problems: [Diagnostic]) {
        var properties: [PropertyInfo] = []
        var problems: [Diagnostic] = []
        for member in model.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if let problem = TransientProperty(variable)?.problem {
                problems.append(problem)
                continue
            }
            if let binding = PropertyInfo.lacksTypeAnnotation(variable) {
                problems.append(Diagnostic(node: binding.pattern,
                                           message: ModelDiagnostic.missingTypeAnnotation(property: binding.pattern.trimmedDescription)))
                continue
            }
            guard let property = PropertyInfo(variable) else { continue }
            if let problem = problem(with: property) {
                problems.append(problem)
                continue
            }
            properties.append(property)
        }
        return (properties, problems)
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
    /// Puts `@_TransientProperty` on each `@Transient var` (its storage and accessors), and
    /// `@_PersistedProperty` (the accessors) on each persisted property, with a field's position
    /// among the model's columns (`column: N`: the fields in declaration order, then the relationships, as
    /// `ModelDescription` orders them), so that its accessors reach the column by position.
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        guard let model = try validatedClass(declaration, node: node, context: context, report: false),
              let variable = member.as(VariableDeclSyntax.self) else { return [] }
        if TransientMacro.convertible(variable) != nil, variable.attribute(named: "_TransientProperty") == nil {
            return ["@_TransientProperty"]
        }
        guard let property = PropertyInfo(variable), !property.isLet,
              problem(with: property) == nil, variable.attribute(named: "_PersistedProperty") == nil
        else { return [] }
        guard property.relationship == nil, let column = fieldColumn(of: variable, in: model) else { return ["@_PersistedProperty"] }
        return ["@_PersistedProperty(column: \(raw: column))"]
    }

    /// The position of the field `variable` declares among the model's fields (declaration order).
    static func fieldColumn(of variable: VariableDeclSyntax, in model: ClassDeclSyntax) -> Int? {
        fieldDeclarations(of: model).firstIndex { other in
            other.id == variable.id || other.trimmedDescription == variable.trimmedDescription
        }
    }

    /// Each field's position among the model's fields, by name.
    static func fieldColumns(of model: ClassDeclSyntax) -> [String: Int] {
        Dictionary(fieldDeclarations(of: model).compactMap(PropertyInfo.init).enumerated().map { ($1.name, $0) },
                   uniquingKeysWith: { first, _ in first })
    }

    /// The declarations of the model's fields (not its `@Relationship`s), in declaration order: the
    /// order of their columns.
    private static func fieldDeclarations(of model: ClassDeclSyntax) -> [VariableDeclSyntax] {
        model.memberBlock.members.compactMap { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self), let property = PropertyInfo(variable),
                  property.relationship == nil else { return nil }
            return variable
        }
    }
}

extension ModelMacro: ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard let model = try validatedClass(declaration, node: node, context: context, report: false) else { return [] }
        // A property with a misuse stays a stored property: checked Sendable would add an error about it
        // ("stored property … is mutable") next to the one that says what is wrong.
        let sendable = persistedProperties(of: model).problems.isEmpty ? "Sendable" : "@unchecked Sendable"
        return [try ExtensionDeclSyntax("extension \(type.trimmed): VeinCore.PersistentModel, \(raw: sendable) {}")]
    }
}
