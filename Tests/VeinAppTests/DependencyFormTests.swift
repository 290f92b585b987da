import Foundation
import Testing

/// How an app may name Vein in its Package.swift. The macro targets find the toolchain's own SwiftSyntax
/// with `-I` and `-L` (`unsafeFlags`: no SwiftSyntax package can be fetched), and SwiftPM refuses unsafe
/// flags in a package it takes by version. This test asks this toolchain's SwiftPM, on a local git copy
/// of this package tagged 1.0.0, so that examples/BlogApp/README.md's answer ("by path, branch or revision, not by
/// version") fails here the day a toolchain answers otherwise. Only the package graph is loaded (a build
/// of a product that does not exist): nothing is compiled.
@Suite(.serialized) struct DependencyFormTests {
    static let root = ChildProcess.packageRoot

    static func onPath(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }

    static let swiftFound = onPath("swift") && onPath("git")

    /// `arguments` through /usr/bin/env, in `folder`, without the git variables of a surrounding run.
    static func run(_ arguments: [String], in folder: URL) throws -> ChildProcess {
        var environment = ProcessInfo.processInfo.environment
        for name in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"] { environment[name] = nil }
        return try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), arguments, in: folder, environment: environment)
    }

    /// A git repository holding this package's manifest and sources, its one commit tagged 1.0.0; returns
    /// the commit.
    static func taggedCopy(at repository: URL) throws -> String {
        let files = FileManager.default
        try files.createDirectory(at: repository, withIntermediateDirectories: true)
        try files.copyItem(at: root.appendingPathComponent("Package.swift"), to: repository.appendingPathComponent("Package.swift"))
        try files.copyItem(at: root.appendingPathComponent("Sources"), to: repository.appendingPathComponent("Sources"))
        for step in [["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                     ["git", "-c", "user.name=Vein", "-c", "user.email=vein@example.com", "commit", "-q", "-m", "1.0.0"],
                     ["git", "tag", "1.0.0"]] {
            let result = try run(step, in: repository)
            try #require(result.status == 0, "\(step): \(result.output)")
        }
        return try run(["git", "rev-parse", "HEAD"], in: repository).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The app's Package.swift with `requirement` for Vein, then its package graph loaded.
    static func loadGraph(app: URL, repository: URL, requirement: String) throws -> ChildProcess {
        let files = FileManager.default
        try? files.removeItem(at: app)
        try files.createDirectory(at: app.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        try "import VeinCore\n".write(to: app.appendingPathComponent("Sources/App/main.swift"), atomically: true, encoding: .utf8)
        try """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "App",
                dependencies: [.package(url: "\(repository.absoluteString)", \(requirement))],
                targets: [.executableTarget(name: "App", dependencies: [.product(name: "VeinCore", package: "vein")])]
            )
            """.write(to: app.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        return try run(["swift", "build", "--product", "NoSuchProduct"], in: app)
    }

    @Test(.enabled(if: swiftFound, "swift or git is not on PATH"))
    func byVersionIsRefusedByBranchAndRevisionLoad() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("vein-dependency-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let repository = work.appendingPathComponent("vein")
        let commit = try Self.taggedCopy(at: repository)
        let app = work.appendingPathComponent("app")

        for requirement in [#"from: "1.0.0""#, #"exact: "1.0.0""#] {
            let byVersion = try Self.loadGraph(app: app, repository: repository, requirement: requirement)
            #expect(byVersion.status != 0)
            #expect(byVersion.output.contains("error: 'app': the target 'VeinMacros' in product 'VeinCore' contains unsafe build flags"),
                    "\(requirement): \(byVersion.output)")
        }
        for requirement in [#"branch: "main""#, "revision: \"\(commit)\""] {
            let loaded = try Self.loadGraph(app: app, repository: repository, requirement: requirement)
            // The graph loaded: the only complaint is the product this test asked for.
            #expect(loaded.output.contains("error: no product named 'NoSuchProduct'"), "\(requirement): \(loaded.output)")
            #expect(!loaded.output.contains("unsafe build flags"), "\(requirement): \(loaded.output)")
        }
    }
}
