// swift-tools-version:6.0
import PackageDescription

// Arrows point one way: vein (main) → VeinCLI → Vein → C modules. Each folder is one concern.
let package = Package(
    name: "Vein",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Vein", targets: ["Vein"]),
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

        // The engine: storage, schema, keys, store lifecycle. Knows nothing of the CLI.
        .target(name: "Vein", dependencies: ["CSQLCipher", "CCrypto", "CVeinSecret", "CVeinMemory"]),

        // The command layer: a declarative command table, one file per command.
        .target(name: "VeinCLI", dependencies: ["Vein", "CReadline"]),
        // Release builds link the Swift runtime and Foundation statically: resolving their symbols at every
        // start was most of `vein --version`'s time (bench/README.md, "REPL start-up"). main.swift is compiled
        // against the static Foundation too, for the libraries it needs (CoreFoundation, ICU) to be linked.
        .executableTarget(name: "vein", dependencies: ["VeinCLI"],
                          swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
                          linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]),
        // Writes man/ and completions/ from the command table (`make docs`).
        .executableTarget(name: "vein-docgen", dependencies: ["VeinCLI"]),

        // The Swift side of bench/run (built in release mode by that script).
        .executableTarget(name: "vein-bench", dependencies: ["Vein"]),

        .testTarget(name: "VeinTests", dependencies: ["Vein", "CSQLCipher"]),
        .testTarget(name: "VeinCLITests", dependencies: ["VeinCLI", "Vein"]),
        // Vein as an app uses it: `import Vein` only (Tests/VeinAppTests type-checks itself from outside the package).
        .testTarget(name: "VeinAppTests", dependencies: ["Vein"]),
    ]
)
