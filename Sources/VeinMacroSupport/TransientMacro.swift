import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `_TransientProperty`, which @Model puts on a `@Transient var cache: Int = 0`: a property Vein does not
/// store, kept per instance in a lock-protected `TransientStorage` beside it (the peer), which the property
/// reads and writes (the accessors). A model is Sendable: a mutable stored property there would be a data
/// race the compiler refuses. The initial value goes through the `init` accessor, so every instance (a
/// fetched one too) starts with it. A property that cannot be converted gets no attribute; @Model reports why.
public enum TransientMacro: PeerMacro, AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let property = convertible(declaration), let type = property.type?.trimmed else { return [] }
        // Without an initial value (an optional only): nil until set.
        let start = property.initializer == nil ? "nil" : ""
        return ["private let \(raw: property.storageName) = VeinCore.TransientStorage<\(type)>(\(raw: start))"]
    }

    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let property = convertible(declaration) else { return [] }
        let storage = property.storageName
        return [
            """
            @storageRestrictions(accesses: \(raw: storage))
            init(initialValue) { \(raw: storage).set(initialValue) }
            """,
            "get { \(raw: storage).get() }",
            "set { \(raw: storage).set(newValue) }",
        ]
    }

    static func convertible(_ declaration: some DeclSyntaxProtocol) -> TransientProperty? {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = TransientProperty(variable),
              property.problem == nil else { return nil }
        return property
    }
}
