// swift-tools-version:6.0
import PackageDescription
import CompilerPluginSupport
import Foundation

/// The toolchain's own SwiftSyntax (`<toolchain>/usr/lib/swift/host`) serves the macros: no package outside
/// the toolchain can be fetched (ARCHITECTURE.md, "The layers"). The toolchain is VEIN_SWIFT_TOOLCHAIN (the folder holding
/// `usr/`) when set, otherwise the one whose `swiftc` comes first on PATH, symlinks resolved.
func swiftSyntaxHostFolder() -> String {
    let environment = ProcessInfo.processInfo.environment
    if let toolchain = environment["VEIN_SWIFT_TOOLCHAIN"], !toolchain.isEmpty {
        return URL(fileURLWithPath: toolchain).appendingPathComponent("usr/lib/swift/host").path
    }
    for folder in (environment["PATH"] ?? "").split(separator: ":") {
        let swiftc = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
        guard FileManager.default.isExecutableFile(atPath: swiftc.path) else { continue }
        // …/usr/bin/swiftc → …/usr/lib/swift/host
        let usr = swiftc.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        return usr.appendingPathComponent("lib/swift/host").path
    }
    return "/usr/lib/swift/host"  // no swiftc on PATH: the build fails naming this folder
}
let swiftSyntaxHost = swiftSyntaxHostFolder()
let swiftSyntaxSettings: [SwiftSetting] = [.unsafeFlags(["-I", swiftSyntaxHost])]
let swiftSyntaxLinking: [LinkerSetting] = [
    .unsafeFlags(["-L", swiftSyntaxHost, "-Xlinker", "-rpath", "-Xlinker", swiftSyntaxHost]),
    .linkedLibrary("SwiftSyntax"), .linkedLibrary("SwiftSyntaxBuilder"), .linkedLibrary("SwiftSyntaxMacros"),
    .linkedLibrary("SwiftDiagnostics"), .linkedLibrary("SwiftParser"), .linkedLibrary("SwiftBasicFormat"),
    .linkedLibrary("SwiftParserDiagnostics"), .linkedLibrary("SwiftOperators"),
    .linkedLibrary("SwiftSyntaxMacroExpansion"), .linkedLibrary("SwiftCompilerPluginMessageHandling"),
]

/// The folders of Tests/SwiftDataCompat, each a program (a test fails for a folder missing here).
let swiftDataCompatibilityPrograms = ["Contacts", "PetAdoption", "SearchField", "Trips"]

// Arrows point one way: vein (main) → VeinCLI → VeinCore → Vein → C modules (VeinTesting over VeinCore);
// scripts/check-layers checks the dependencies below and each module's imports. Each folder is one concern.
let package = Package(
    name: "Vein",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Vein", targets: ["Vein"]),
        .library(name: "VeinCore", targets: ["VeinCore"]),
        .library(name: "VeinTesting", targets: ["VeinTesting"]),
        .executable(name: "vein", targets: ["vein"]),
    ],
    targets: [
        // System libraries (Debian: libsqlcipher-dev, libssl-dev, libsecret-1-dev, libreadline-dev).
        .systemLibrary(name: "CSQLCipher", pkgConfig: "sqlcipher",
                       providers: [.apt(["libsqlcipher-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CReadline", pkgConfig: "readline",
                       providers: [.apt(["libreadline-dev"])]),
        // libsecret's API is variadic; this shim gives Swift fixed-arity calls. It opens libsecret at first
        // use (dlopen) rather than linking it, so GLib & co. load only when a keyring is used.
        .target(name: "CVeinSecret"),
        // prctl (variadic) and explicit_bzero, to keep keys out of core dumps.
        .target(name: "CVeinMemory"),

        // The field types and their facts, read by the engine and the macros alike (the plugin cannot link
        // the engine, so the one table lives below both).
        .target(name: "VeinFieldTypes"),
        // The engine: storage, schema, keys, store lifecycle. Knows nothing of the CLI.
        .target(name: "Vein", dependencies: ["VeinFieldTypes", "CSQLCipher", "CCrypto", "CVeinSecret", "CVeinMemory"],
                swiftSettings: [.define("VEIN_TEST_HOOKS", .when(configuration: .debug))]),

        // The typed Swift surface (docs/app-guide.md): @Model classes, versioned schemas, a container. Apps import
        // this only; it re-exports what they need of the engine.
        .target(name: "VeinCore", dependencies: ["Vein", "VeinFieldTypes", "VeinMacros"]),
        // Tools for an app's own tests (MigrationTester); apps' test targets import it with VeinCore.
        .target(name: "VeinTesting", dependencies: ["VeinCore", "Vein"]),
        // The macro implementations, a library so that tests expand them in process (VeinMacroTests).
        .target(name: "VeinMacroSupport", dependencies: ["VeinFieldTypes"], swiftSettings: swiftSyntaxSettings, linkerSettings: swiftSyntaxLinking),
        // The compiler plugin: a main that serves VeinMacroSupport's macros to the compiler.
        .macro(name: "VeinMacros", dependencies: ["VeinMacroSupport"],
               swiftSettings: swiftSyntaxSettings, linkerSettings: swiftSyntaxLinking),

        // The command layer: a declarative command table, one file per command.
        // Debug builds (the ones the tests run) get the hooks that let a test stop or hold vein from outside
        // (Framework/TestHooks.swift); release builds are compiled without them.
        .target(name: "VeinCLI", dependencies: ["Vein", "CReadline"],
                swiftSettings: [.define("VEIN_TEST_HOOKS", .when(configuration: .debug))]),
        // Release builds link the Swift runtime and Foundation statically: resolving their symbols at every
        // start was most of `vein --version`'s time (bench/README.md, "REPL start-up"). main.swift is compiled
        // against the static Foundation too, for the libraries it needs (CoreFoundation, ICU) to be linked.
        .executableTarget(name: "vein", dependencies: ["VeinCLI"],
                          swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
                          linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]),
        // Writes man/ and completions/ from the command table (`make docs`).
        .executableTarget(name: "vein-docgen", dependencies: ["VeinCLI"]),

        // The Swift side of bench/run (built in release mode by that script).
        .executableTarget(name: "vein-bench", dependencies: ["Vein", "VeinCore", "CVeinMemory"]),

        .testTarget(name: "VeinTests", dependencies: ["Vein", "CSQLCipher"]),
        // A test VFS that fails the Nth I/O call or cuts the power after the Nth sync (SQLite's ioerr and
        // crash tests). Only test targets depend on it: it never ships in `vein`.
        .target(name: "CVeinFaultVFS", dependencies: ["CSQLCipher"], path: "Tests/CVeinFaultVFS"),
        // Fixtures (stores and files the tests open by path from the source tree) are no part of a target.
        .testTarget(name: "VeinCLITests", dependencies: ["VeinCLI", "Vein", "VeinCore", "CVeinFaultVFS"], exclude: ["Fixtures"]),
        // Vein as an app uses it: `import Vein` only (Tests/VeinAppTests type-checks itself from outside the package).
        .testTarget(name: "VeinAppTests", dependencies: ["Vein"]),
        .testTarget(name: "VeinMacroTests", dependencies: ["VeinMacroSupport"],
                    swiftSettings: swiftSyntaxSettings, linkerSettings: swiftSyntaxLinking),
        .testTarget(name: "VeinCoreTests", dependencies: ["VeinCore", "Vein", "VeinTesting"], exclude: ["Fixtures"]),
    ] + swiftDataCompatibilityPrograms.map { name in
        // The SwiftData compatibility suite: programs written as SwiftData's documentation writes them,
        // built against VeinCore only; Tests/VeinAppTests/SwiftDataCompatibilityTests runs each and
        // compares what it prints with its expected.txt.
        .executableTarget(name: "SwiftDataCompat\(name)", dependencies: ["VeinCore"], path: "Tests/SwiftDataCompat/\(name)",
                          exclude: ["expected.txt"])
    }
)
