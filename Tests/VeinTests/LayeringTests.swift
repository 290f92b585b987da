import Foundation
import Testing

/// The modules point one way (VeinCLI → VeinCore → Vein → C modules), in Package.swift and in their imports,
/// and so do the engine's folders (Support, JSON, Storage, Schema, Keys, Store, Predicate, Context,
/// Interchange, Migration, Statements): `scripts/check-layers` type-checks each layer with only the ones
/// before it, so a file that names a later layer fails. And the engine's messages are an app's as much as
/// the CLI's: they name no command-line option (the CLI adds those as hints, in ErrorReporting).
@Suite struct LayeringTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = root.appendingPathComponent("scripts/check-layers").path

    /// swiftc and pkg-config on PATH: the check compiles the sources as the build does.
    static let toolsFound: Bool = ["swiftc", "pkg-config"].allSatisfy { tool in
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    static func check(_ root: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, root.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test(.enabled(if: toolsFound, "swiftc or pkg-config is not on PATH: the layer check compiles the engine's sources"))
    func layersPointOneWay() throws {
        let (status, output) = try Self.check(Self.root)
        #expect(status == 0, "\(output)")
    }

    /// The check on a copy of the package's manifest and sources in which `plant` put a wrong-way reference.
    static func check(planting plant: (TempDir) throws -> Void) throws -> (status: Int32, output: String) {
        let copy = try TempDir()
        defer { copy.cleanUp() }
        for item in ["Package.swift", "Sources"] {
            try FileManager.default.copyItem(at: Self.root.appendingPathComponent(item), to: copy.url.appendingPathComponent(item))
        }
        try plant(copy)
        return try check(copy.url)
    }

    /// What the engine may use, as the module check says it.
    static let engineMayUse = "Vein may use only VeinFieldTypes CSQLCipher CCrypto CVeinSecret CVeinMemory (VeinCLI → VeinCore → Vein → C modules)"

    /// The check itself can fail: a copy of the sources with a storage file that names the context.
    @Test(.enabled(if: toolsFound, "swiftc or pkg-config is not on PATH: the layer check compiles the engine's sources"))
    func aBackwardReferenceFailsTheCheck() throws {
        let (status, output) = try Self.check { copy in
            try copy.write("Sources/Vein/Storage/Backwards.swift", "extension Database { func backwards(_ context: ObjectContext) {} }\n")
        }
        #expect(status == 1)
        #expect(output.contains("Sources/Vein/Storage/Backwards.swift") && output.contains("'ObjectContext'"), "\(output)")
    }

    /// Modules point one way too (VeinCLI → VeinCore → Vein → C modules): the engine importing VeinCore,
    /// or depending on it in Package.swift, fails the check with the file and line, or the manifest, named.
    @Test(.enabled(if: toolsFound, "swiftc or pkg-config is not on PATH: the layer check compiles the engine's sources"))
    func theEngineImportingVeinCoreFailsTheCheck() throws {
        let (status, output) = try Self.check { copy in
            try copy.write("Sources/Vein/Support/Upward.swift", "import Foundation\n@_implementationOnly import VeinCore\n")
        }
        #expect(status == 1)
        #expect(output.contains("check-layers: Sources/Vein/Support/Upward.swift:2 imports VeinCore; \(Self.engineMayUse)"), "\(output)")
    }

    @Test(.enabled(if: toolsFound, "swiftc or pkg-config is not on PATH: the layer check compiles the engine's sources"))
    func theEngineDependingOnVeinCoreFailsTheCheck() throws {
        let (status, output) = try Self.check { copy in
            let manifest = copy.url.appendingPathComponent("Package.swift")
            let text = try String(contentsOf: manifest, encoding: .utf8)
            let engine = #".target(name: "Vein", dependencies: ["#
            try #require(text.contains(engine))
            try text.replacingOccurrences(of: engine, with: engine + #""VeinCore", "#).write(to: manifest, atomically: true, encoding: .utf8)
        }
        #expect(status == 1)
        #expect(output.contains("check-layers: Package.swift: Vein depends on VeinCore; \(Self.engineMayUse)"), "\(output)")
    }

    /// A string literal in the engine that names an option (`--key-file`) or a command (`vein verify`).
    @Test func engineMessagesNameNoCommandLineOption() throws {
        let engine = Self.root.appendingPathComponent("Sources/Vein")
        let option = try Regex(#""[^"]*(--[a-z]|'vein |\bvein (help|verify|migrate|backup|encrypt|import|export|key)\b)[^"]*""#)
        var found: [String] = []
        for case let path as String in FileManager.default.enumerator(atPath: engine.path)! where path.hasSuffix(".swift") {
            let text = try String(contentsOf: engine.appendingPathComponent(path), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), line.contains(option) else { continue }
                found.append("Sources/Vein/\(path):\(n + 1): \(code)")
            }
        }
        #expect(found.isEmpty, "engine messages that name the CLI:\n\(found.joined(separator: "\n"))")
    }
}
