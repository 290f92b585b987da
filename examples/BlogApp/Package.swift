// swift-tools-version:6.0
import PackageDescription

// The announcement's blog as an app of its own. It depends on Vein as an app does: here by path (the
// repository's root), elsewhere by URL and branch. The app imports VeinCore only; its tests VeinTesting too.
let package = Package(
    name: "BlogApp",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Vein", path: "../..")],
    targets: [
        .executableTarget(name: "BlogApp", dependencies: [.product(name: "VeinCore", package: "Vein")]),
        .testTarget(name: "BlogAppTests", dependencies: ["BlogApp", .product(name: "VeinTesting", package: "Vein")]),
    ]
)
