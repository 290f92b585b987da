import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor actor Importer { … }`, SwiftData's pattern for work off the main context: the actor gets
/// the container it was made with, a context of its own made from it, `init(modelContainer:)`, and
/// `ModelActor` conformance. SwiftData also gives it a `modelExecutor` that runs the actor on the context's
/// queue; Vein's context serialises its own work with a lock and may be used from any thread, so the
/// actor keeps Swift's default executor and there is no `modelExecutor`.
public enum ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            context.diagnose(notAnActor(declaration, node: node))
            return []
        }
        return [
            "nonisolated let modelContainer: VeinCore.ModelContainer",
            "nonisolated let modelContext: VeinCore.ModelContext",
            """
            init(modelContainer: VeinCore.ModelContainer) {
                self.modelContainer = modelContainer
                self.modelContext = VeinCore.ModelContext(modelContainer)
            }
            """,
        ]
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): VeinCore.ModelActor {}")]
    }

    /// The diagnostic for a class or struct, with a fix-it that makes it an actor.
    private static func notAnActor(_ declaration: some DeclGroupSyntax, node: AttributeSyntax) -> Diagnostic {
        let keyword = declaration.as(ClassDeclSyntax.self)?.classKeyword ?? declaration.as(StructDeclSyntax.self)?.structKeyword
            ?? declaration.as(EnumDeclSyntax.self)?.enumKeyword
        let fixIts = keyword.map { keyword in
            [FixIt(message: ModelFixIt(message: "make it an actor"), changes: [
                .replace(oldNode: Syntax(keyword), newNode: Syntax(TokenSyntax.keyword(.actor, leadingTrivia: keyword.leadingTrivia,
                                                                                       trailingTrivia: keyword.trailingTrivia)))
            ])]
        } ?? []
        return Diagnostic(node: node, message: ModelActorDiagnostic(kind: keyword?.text ?? "extension"), fixIts: fixIts)
    }
}

/// @ModelActor on something other than an actor.
struct ModelActorDiagnostic: DiagnosticMessage {
    let kind: String
    var message: String {
        "@ModelActor applies to an actor, not to \(kind == "enum" || kind == "extension" ? "an" : "a") \(kind): "
            + "its context is used from the actor's methods, one call at a time"
    }
    var diagnosticID: MessageID { MessageID(domain: "VeinMacros", id: "modelActorNotAnActor") }
    var severity: DiagnosticSeverity { .error }
}
