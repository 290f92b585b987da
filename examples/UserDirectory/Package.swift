// swift-tools-version:6.0
import PackageDescription

// "SwiftData outside SwiftUI": a user directory with a generic `Database` over a context made per call,
// as the article writes it. It depends on Vein as an app does (here by path), imports VeinCore only.
let package = Package(
    name: "UserDirectory",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Vein", path: "../..")],
    targets: [
        .executableTarget(name: "UserDirectory", dependencies: [.product(name: "VeinCore", package: "Vein")]),
        .testTarget(name: "UserDirectoryTests", dependencies: ["UserDirectory"]),
    ]
)
