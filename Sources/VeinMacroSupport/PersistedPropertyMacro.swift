import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The accessors of one persisted property (@Model puts this attribute on each): every read and write
/// goes through the object's backing, that is through its context once it has one. A property written
/// with an initial value also gets an `init` accessor, so that the value is the object's pending value.
public enum PersistedPropertyMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = PropertyInfo(variable) else { return [] }
        let name = property.name
        if property.relationship != nil {
            let element = FieldTypeSyntax.elementOfToMany(property.type)
            let target = element ?? FieldTypeSyntax.wrappedOfOptional(property.type) ?? property.type
            let (get, set) = element == nil ? ("toOne", "setToOne") : ("toMany", "setToMany")
            // An optional to-many (`[Pet]?`) set to nil is emptied.
            let value = element != nil && FieldTypeSyntax.wrappedOfOptional(property.type) != nil ? " ?? []" : ""
            let initialValue: [AccessorDeclSyntax] = property.initializer == nil ? [] : ["""
                @storageRestrictions(accesses: _$backing)
                init(initialValue) { _$backing.\(raw: set)(\(literal: name), initialValue\(raw: value)) }
                """]
            return initialValue + [
                "get { _$backing.\(raw: get)(\(literal: name), as: \(target.trimmed).self) }",
                "set { _$backing.\(raw: set)(\(literal: name), newValue\(raw: value)) }",
            ]
        }
        // The field's position among the model's columns, when @Model gave it (`column: N`).
        let column = node.argument(labeled: "column")?.as(IntegerLiteralExprSyntax.self).map { ", column: \($0.literal.text)" } ?? ""
        var accessors: [AccessorDeclSyntax] = []
        if property.initializer != nil {
            accessors.append("""
                @storageRestrictions(accesses: _$backing)
                init(initialValue) { _$backing.setField(\(literal: name)\(raw: column), initialValue) }
                """)
        }
        accessors.append("get { _$backing.field(\(literal: name)\(raw: column), as: (\(property.type.trimmed)).self) }")
        accessors.append("set { _$backing.setField(\(literal: name)\(raw: column), newValue) }")
        return accessors
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
