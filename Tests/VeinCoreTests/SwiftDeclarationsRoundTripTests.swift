import Foundation
import Testing
import Vein

/// `vein schema --swift` round trip: the Swift declarations the engine writes for a schema, compiled as an
/// app compiles them (scripts/run-app: the built VeinCore and VeinMacros plugin) and run, give back the
/// schema's canonical manifest byte for byte. One compile for every manifest: the examples, the fixtures,
/// the fuzz corpus and every manifest written out in the test sources.
@Suite struct SwiftDeclarationsRoundTripTests {
    static let root = CompileTimeCheckTests.root

    /// The manifests to round-trip: files, and the `"""` literals of the test sources that hold a
    /// manifest (no interpolation); those that do not parse (tests of bad manifests) are left out.
    static func manifests() throws -> [(source: String, manifest: SchemaManifest)] {
        var found: [(String, SchemaManifest)] = []
        var seen = Set<String>()
        func add(_ text: String, _ source: String) {
            guard let manifest = try? ManifestParser.parse(text, file: source), seen.insert(manifest.canonicalText).inserted else { return }
            found.append((source, manifest))
        }
        let files = ["examples", "Tests"].flatMap { folder in
            (FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)?.compactMap { $0 as? String } ?? [])
                .map { "\(folder)/\($0)" }
        }.sorted()
        for file in files where !file.contains("/.") {
            let path = root.appendingPathComponent(file).path
            if file.hasSuffix(".json5") && (file.hasPrefix("examples/") || file.hasPrefix("Tests/")) {
                add(try String(contentsOfFile: path, encoding: .utf8), file)
            } else if file.hasPrefix("Tests/") && file.hasSuffix(".swift") {
                let parts = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\"\"\"")
                for (i, part) in parts.enumerated() where i % 2 == 1 && part.contains("vein: 1") && !part.contains("\\(") {
                    add(part.replacingOccurrences(of: "\\\\", with: "\\"), "\(file) literal \(i / 2 + 1)")
                }
            }
        }
        return found
    }

    /// What Swift cannot declare yet is refused, with one of these reasons, never with wrong Swift.
    static let documentedRefusals = ["a date default", "a data default", "a json default",
                                     "a relationship that is its own inverse", "a model named", "a member named"]

    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func declarationsGiveBackTheCanonicalManifest() throws {
        var sources: [String] = [], expected: [String] = [], printed: [String] = []
        var refused: [String] = []
        for (n, (source, manifest)) in try Self.manifests().enumerated() {
            let swift: String
            do {
                swift = try manifest.swiftDeclarations()
            } catch {
                #expect(Self.documentedRefusals.contains { error.problem.hasPrefix($0) }, "\(source): \(error)")
                refused.append("\(source): \(error)")
                continue
            }
            // Each schema in an enum of its own (imports stay at the top of the file).
            let body = swift.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("import ") }.map { "    " + $0 }.joined(separator: "\n")
            sources.append("enum Manifest\(n) {\n\(body)\n}\n")
            let version = manifest.version
            printed.append("print(try Manifest\(n).V\(version.major)_\(version.minor)_\(version.patch).manifest(appID: \(String(reflecting: manifest.app))).canonicalText)")
            expected.append(manifest.canonicalText)
        }
        #expect(expected.count >= 15, "only \(expected.count) manifests found; refused: \(refused)")
        print("round trip: \(expected.count) manifests, refused: \(refused)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vein-roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schemas = folder.appendingPathComponent("Schemas.swift"), main = folder.appendingPathComponent("Main.swift")
        try ("import Foundation\nimport VeinCore\n\n" + sources.joined(separator: "\n")).write(to: schemas, atomically: true, encoding: .utf8)
        try """
            import VeinCore
            @main struct Main {
                static func main() throws {
                    \(printed.joined(separator: "\n        "))
                }
            }
            """.write(to: main, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.root.appendingPathComponent("scripts/run-app").path, schemas.path, main.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: errors, as: UTF8.self).prefix(4000))")
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == expected.count)
        for (line, manifest) in zip(lines, expected) { #expect(line == manifest) }
    }
}
