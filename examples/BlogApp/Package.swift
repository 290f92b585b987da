// swift-tools-version:6.0
import PackageDescription

// The announcement's blog as an app of its own: it depends on Vein as any app would (here by path, the
// repository's root; an app elsewhere writes `.package(url: "…/vein.git", branch: "main")`).
let package = Package(
    name: "BlogApp",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Vein", path: "../..")],
    targets: [
        .executableTarget(name: "BlogApp", dependencies: [.product(name: "VeinCore", package: "Vein")]),
    ]
)
