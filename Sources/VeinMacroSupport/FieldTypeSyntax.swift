import SwiftSyntax
import SwiftSyntaxBuilder
import VeinFieldTypes

/// What the written type of a persisted property says by itself. The type checker decides the rest, in
/// the code @Model generates: whether a property without `@Relationship` is a field or a relationship
/// (VeinCore's FieldTypeOverloads.swift), that a field's type is Codable and a relationship's target a
/// `PersistentModel`.
enum FieldTypeSyntax {
    /// Types of the standard library and Foundation that Vein does not store, and what to use instead.
    static let unsupported: [String: String?] = [
        "Float": "Double", "Float16": "Double", "Float80": "Double", "CGFloat": "Double",
        "Int8": "Int", "Int16": "Int", "Int32": "Int", "Int64": "Int",
        "UInt": "Int", "UInt8": "Int", "UInt16": "Int", "UInt32": "Int", "UInt64": "Int",
        "Character": "String", "Substring": "String",
        "Any": nil, "AnyObject": nil, "AnyHashable": nil, "Void": nil, "Never": nil,
    ]

    /// The field types' Swift names, plain and module-qualified (`Date`, `Foundation.Date`), from the table
    /// the engine reads too (VeinFieldTypes).
    static let stored: Set<String> = Set(FieldType.allCases.flatMap(\.facts.swiftSpellings))

    /// `T?`, `T!` and `Optional<T>` give T; nil for a non-optional type.
    static func wrappedOfOptional(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return iuo.wrappedType }
        if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Optional",
           let argument = named.genericArgumentClause?.arguments.first {
            return TypeSyntax(stringLiteral: argument.argument.trimmedDescription)
        }
        return nil
    }

    /// `[T]` and `Array<T>` give T.
    static func elementOfArray(_ type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) { return array.element }
        if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Array",
           let argument = named.genericArgumentClause?.arguments.first {
            return TypeSyntax(stringLiteral: argument.argument.trimmedDescription)
        }
        return nil
    }

    /// The element of a to-many relationship's type: `[T]`, or `[T]?` (the CloudKit-style shape).
    static func elementOfToMany(_ type: TypeSyntax) -> TypeSyntax? {
        elementOfArray(wrappedOfOptional(type) ?? type)
    }

    /// The first part of `type` (itself, or inside optionals, arrays and dictionaries) that Vein cannot
    /// store whatever the type checker says, with the replacement type when there is one.
    static func unsupportedPart(of type: TypeSyntax) -> (part: TypeSyntax, replacement: String?)? {
        if let wrapped = wrappedOfOptional(type) { return unsupportedPart(of: wrapped) }
        if let element = elementOfArray(type) { return unsupportedPart(of: element) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return unsupportedPart(of: dictionary.key) ?? unsupportedPart(of: dictionary.value)
        }
        if type.is(TupleTypeSyntax.self) || type.is(FunctionTypeSyntax.self) || type.is(MetatypeTypeSyntax.self)
            || type.is(SomeOrAnyTypeSyntax.self) || type.is(CompositionTypeSyntax.self) {
            return (type, nil)
        }
        let name = type.trimmedDescription
        if let replacement = unsupported[name] { return (type, replacement) }
        if let bare = name.split(separator: ".").last, name.hasPrefix("Swift."), let replacement = unsupported[String(bare)] {
            return (type, replacement)
        }
        return nil
    }

    /// Whether `type` is one of the plain field types of docs/store-format.md, optionally optional or in an array: a
    /// relationship written with it points to no model.
    static func isPlainFieldType(_ type: TypeSyntax) -> Bool {
        let inner = elementOfToMany(type) ?? wrappedOfOptional(type) ?? type
        return stored.contains(inner.trimmedDescription)
    }
}
