import Foundation

/// A program run to its end, as the tests of this target run scripts, `swift` and the compatibility
/// programs: standard output and standard error together, in the order written.
struct ChildProcess {
    let status: Int32
    /// False when a signal ended it (a trap), with `status` the signal.
    let exited: Bool
    let output: String

    /// The package's root folder (this file is in Tests/VeinAppTests).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func run(_ executable: URL, _ arguments: [String] = [], in folder: URL? = nil,
                    environment: [String: String]? = nil) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return ChildProcess(status: process.terminationStatus, exited: process.terminationReason == .exit, output: output)
    }
}
