import Foundation
import Testing

/// The SwiftData compatibility suite (Tests/SwiftDataCompat): each folder is a program written the way
/// SwiftData's documentation and tutorials write one, built against VeinCore as an executable target of
/// this package (Package.swift lists them). Each runs as a process, and what it prints must be its
/// `expected.txt`, exit status 0: a program that traps (an object read after its context went away, say)
/// fails here with what it printed and its crash report.
@Suite struct SwiftDataCompatibilityTests {
    static let root = ChildProcess.packageRoot
    static let folder = root.appendingPathComponent("Tests/SwiftDataCompat")

    static var programs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test(arguments: programs)
    func printsWhatItsExpectedFileSays(_ program: String) throws {
        let binary = Self.root.appendingPathComponent(".build/debug/SwiftDataCompat\(program)")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                     "no \(binary.path): list \(program) in Package.swift's swiftDataCompatibilityPrograms, then build")
        let expected = try String(contentsOf: Self.folder.appendingPathComponent("\(program)/expected.txt"), encoding: .utf8)
        let result = try ChildProcess.run(binary, in: FileManager.default.temporaryDirectory)
        // Standard error shares the pipe: a program that wrote a warning or trapped differs from its file.
        #expect(result.exited && result.status == 0, "\(program) ended with \(result.exited ? "status" : "signal") \(result.status):\n\(result.output.prefix(3000))")
        #expect(result.output == expected, "\(program) printed:\n\(result.output)")
    }
}
