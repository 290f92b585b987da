import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import VeinMacroSupport

/// Expands Vein's macros in a source text in process, with the toolchain's SwiftSyntax (the compiler runs
/// the same implementations through the VeinMacros plugin).
struct MacroExpansion {
    nonisolated(unsafe) static let macros: [String: Macro.Type] = [
        "Model": ModelMacro.self,
        "_PersistedProperty": PersistedPropertyMacro.self,
        "Field": MarkerMacro.self,
        "LazyField": MarkerMacro.self,
        "Unique": UniqueRoles.self,
        "Attribute": MarkerMacro.self,
        "Relationship": MarkerMacro.self,
        "Index": IndexMacro.self,
        "Transient": MarkerMacro.self,
        "_TransientProperty": TransientMacro.self,
        "ModelActor": ModelActorMacro.self,
    ]

    let expanded: String
    let diagnostics: [Diagnostic]
    let source: SourceFileSyntax

    init(_ text: String) {
        source = Parser.parse(source: text)
        let context = BasicMacroExpansionContext(sourceFiles: [source: .init(moduleName: "App", fullFilePath: "App.swift")])
        expanded = source.expand(macros: Self.macros, contextGenerator: { _ in context }, indentationWidth: .spaces(4)).description
        diagnostics = context.diagnostics
    }

    var messages: [String] { diagnostics.map(\.message) }

    /// The source with the diagnostic's only fix-it applied.
    func applyingFixIt(of diagnostic: Diagnostic) -> String {
        var text = Array(source.description.utf8)
        // Later edits first, so earlier offsets stay valid.
        let edits = diagnostic.fixIts.flatMap(\.changes).map { change -> (Range<Int>, String) in
            switch change {
            case .replace(let old, let new): return (old.position.utf8Offset..<old.endPosition.utf8Offset, new.description)
            case .replaceText(let range, let with, _): return (range.lowerBound.utf8Offset..<range.upperBound.utf8Offset, with)
            default: fatalError("unexpected fix-it change \(change)")
            }
        }.sorted { $0.0.lowerBound > $1.0.lowerBound }
        for (range, replacement) in edits { text.replaceSubrange(range, with: Array(replacement.utf8)) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Line:column of a diagnostic in the source.
    func location(of diagnostic: Diagnostic) -> String {
        let location = diagnostic.location(converter: SourceLocationConverter(fileName: "App.swift", tree: source))
        return "\(location.line):\(location.column)"
    }
}

/// `@Unique` and `#Unique` share a name, which the compiler resolves by role to two implementations; the
/// in-process table has one entry per name, so this one serves both roles.
enum UniqueRoles: PeerMacro, DeclarationMacro {
    static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                          in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try MarkerMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }

    static func expansion(of node: some FreestandingMacroExpansionSyntax,
                          in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try IndexMacro.expansion(of: node, in: context)
    }
}
