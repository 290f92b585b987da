import Foundation
import Testing

/// The public surface of Vein, VeinCore and VeinTesting is committed in api/ (scripts/check-api, run by
/// `make test`): a declaration added or removed without its baseline updated fails with the difference and
/// what to do. scripts/test runs the check itself; here it runs against an altered copy of the baselines, so
/// that the built modules need not change.
@Suite struct APIBaselineTests {
    static let root = ChildProcess.packageRoot
    static let extractorFound = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/swift-symbolgraph-extract")
    }

    /// scripts/check-api against a copy of api/ in which `alter` changed VeinCore's baseline.
    static func check(alteringVeinCore alter: (inout [Substring]) -> Void) throws -> ChildProcess {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("vein-api-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: root.appendingPathComponent("api"), to: copy)
        let core = copy.appendingPathComponent("VeinCore.txt")
        var lines = try String(contentsOf: core, encoding: .utf8).split(separator: "\n")
        alter(&lines)
        try (lines.joined(separator: "\n") + "\n").write(to: core, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["VEIN_API_BASELINES"] = copy.path
        return try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [root.appendingPathComponent("scripts/check-api").path],
                                    environment: environment)
    }

    static let explain = "ModelContext.explain(_:): func explain<T>(_ descriptor: FetchDescriptor<T>) throws -> FetchExplanation where T : PersistentModel"
    static let advice = "check-api: the public API changed (+ added, - removed, above). If that is meant, run scripts/check-api --update and commit api/ with the change."

    /// What the built VeinCore declares and its baseline does not: an addition, shown with a `+`.
    @Test(.enabled(if: extractorFound, "swift-symbolgraph-extract is not on PATH: the check reads the built modules' symbol graphs"))
    func aDeclarationMissingFromTheBaselineFailsTheCheck() throws {
        let result = try Self.check { lines in lines.removeAll { $0 == Self.explain } }
        #expect(result.status == 1)
        #expect(result.output.contains("\n+\(Self.explain)\n"), "\(result.output)")
        #expect(result.output.contains(Self.advice), "\(result.output)")
    }

    @Test(.enabled(if: extractorFound, "swift-symbolgraph-extract is not on PATH: the check reads the built modules' symbol graphs"))
    func aDeclarationGoneFromTheModuleFailsTheCheck() throws {
        let gone = "ModelContext.engine: var engine: ModelContext { get }"
        let result = try Self.check { lines in lines.append(Substring(gone)); lines.sort() }
        #expect(result.status == 1)
        #expect(result.output.contains("\n-\(gone)\n"), "\(result.output)")
        #expect(result.output.contains(Self.advice), "\(result.output)")
    }
}
