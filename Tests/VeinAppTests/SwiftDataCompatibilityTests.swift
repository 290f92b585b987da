import Foundation
import Testing

/// The SwiftData compatibility suite (Tests/SwiftDataCompat): each folder is a program written the way
/// SwiftData's documentation and tutorials write one, built against VeinCore as an executable target of
/// this package (Package.swift lists them). Each runs as a process, and what it prints must be its
/// `expected.txt`, exit status 0: a program that traps (an object read after its context went away, say)
/// fails here with what it printed and its crash report.
@Suite struct SwiftDataCompatibilityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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
        let errorsPath = FileManager.default.temporaryDirectory.appendingPathComponent("vein-compat-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: errorsPath.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorsPath) }
        let process = Process()
        process.executableURL = binary
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorsPath)
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let errors = (try? String(contentsOf: errorsPath, encoding: .utf8)) ?? ""
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "\(program) ended with \(process.terminationReason == .exit ? "status" : "signal") \(process.terminationStatus):\n\(errors.prefix(3000))")
        #expect(printed == expected, "\(program) printed:\n\(printed)")
    }
}
