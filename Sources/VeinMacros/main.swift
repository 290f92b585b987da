@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros
import VeinMacroSupport

/// The compiler runs this executable as the plugin for VeinCore's macro declarations
/// (`#externalMacro(module: "VeinMacros", type: …)`). It is a hand-written main rather than
/// `@main struct … : CompilerPlugin` because the toolchain's host folder has no SwiftCompilerPlugin
/// module: the message listener below is what that module's main would run.
struct VeinMacrosPlugin: PluginProvider {
    func resolveMacro(moduleName: String, typeName: String) throws -> Macro.Type {
        guard let macro = VeinMacroTable.macros[typeName] else {
            throw PluginError(description: "VeinMacros has no macro named \(typeName)")
        }
        return macro
    }
    func loadPluginLibrary(libraryPath: String, moduleName: String) throws {
        throw PluginError(description: "VeinMacros serves its own macros only")
    }
}

struct PluginError: Error, CustomStringConvertible { let description: String }

let listener = CompilerPluginMessageListener(connection: try StandardIOMessageConnection(), provider: VeinMacrosPlugin())
try listener.main()
