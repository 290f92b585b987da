import Foundation
import VeinCLI

// Writes man/*.1 and completions/* from the command table. Run from the package root (`make docs`).
let root = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : FileManager.default.currentDirectoryPath
do {
    for (path, text) in GeneratedDocs.files() {
        let url = URL(fileURLWithPath: root).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        print("wrote \(path)")
    }
} catch {
    FileHandle.standardError.write(Data("vein-docgen: \(error)\n".utf8))
    exit(1)
}
