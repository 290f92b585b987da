import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The accessors of one persisted property (@Model puts this attribute on each): every read and write
/// goes through the object's backing, that is through its context once it has one. Its `init` accessor
/// initializes the property's stored marker (the peer, `AssignedMarker`), so that Swift's definite
/// initialization requires an initializer to assign the property, as it would a stored one.
public enum PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let property = persisted(declaration) else { return [] }
        return [AssignedMarker.declaration(of: property)]
    }

    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let property = persisted(declaration) else { return [] }
        let name = property.name
        if property.relationship != nil {
            let element = FieldTypeSyntax.elementOfToMany(property.type)
            let target = element ?? FieldTypeSyntax.wrappedOfOptional(property.type) ?? property.type
            let (get, set) = element == nil ? ("toOne", "setToOne") : ("toMany", "setToMany")
            // An optional to-many (`[Pet]?`) set to nil is emptied.
            let value = element != nil && FieldTypeSyntax.wrappedOfOptional(property.type) != nil ? " ?? []" : ""
            let initialize = element == nil ? "initializeToOne" : "initializeToMany"
            return [
                AssignedMarker.initAccessor(of: property, writing: "_$backing.\(initialize)(\"\(name)\", initialValue\(value))"),
                "get { _$backing.\(raw: get)(\(literal: name), as: \(target.trimmed).self) }",
                "set { _$backing.\(raw: set)(\(literal: name), newValue\(raw: value)) }",
            ]
        }
        // The field's position among the model's columns, when @Model gave it (`column: N`).
        let column = node.argument(labeled: "column")?.as(IntegerLiteralExprSyntax.self).map { ", column: \($0.literal.text)" } ?? ""
        return [
            AssignedMarker.initAccessor(of: property, writing: "if !_$backing.initializesRelationship(\"\(name)\", initialValue) "
                                        + "{ _$backing.setField(\"\(name)\"\(column), initialValue) }"),
            "get { _$backing.field(\(literal: name)\(raw: column), as: (\(property.type.trimmed)).self) }",
            "set { _$backing.setField(\(literal: name)\(raw: column), newValue) }",
        ]
    }

    private static func persisted(_ declaration: some DeclSyntaxProtocol) -> PropertyInfo? {
        declaration.as(VariableDeclSyntax.self).flatMap(PropertyInfo.init)
    }
}

/// `@Field`, `@LazyField`, `@Unique`, `@Attribute(…)` and `@Relationship(…)`: markers that
/// @Model reads from the declaration; by themselves they add nothing.
public enum MarkerMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] { [] }
}

/// The macros the plugin serves, by the type name VeinCore's declarations give.
public enum VeinMacroTable {
    // Immutable after initialization; metatypes of macros are not Sendable, so the compiler cannot tell.
    nonisolated(unsafe) public static let macros: [String: Macro.Type] = [
        "ModelMacro": ModelMacro.self,
        "PersistedPropertyMacro": PersistedPropertyMacro.self,
        "MarkerMacro": MarkerMacro.self,
        "IndexMacro": IndexMacro.self,
        "TransientMacro": TransientMacro.self,
        "ModelActorMacro": ModelActorMacro.self,
    ]
}
