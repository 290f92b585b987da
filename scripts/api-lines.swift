// The public surface of a module as sorted text lines, from the symbol graph files swift-symbolgraph-extract
// wrote to FOLDER (the module's own and those of its extensions to other modules' types). One line per
// declaration, `Path.to.member: its declaration`, and one per conformance, `Type: Protocol`, so that a diff
// of two runs reads as the change to the API. Run by scripts/check-api:
//
//   swift scripts/api-lines.swift FOLDER
import Foundation

struct Symbol {
    let path: String
    let declaration: String
}

func text(of fragments: Any?) -> String {
    ((fragments as? [[String: Any]]) ?? []).compactMap { $0["spelling"] as? String }.joined()
        .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
}

let folder = URL(fileURLWithPath: CommandLine.arguments[1])
var symbols: [String: Symbol] = [:]
var conformances: [(source: String, target: String, fallback: String?)] = []
let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
    .filter { $0.lastPathComponent.hasSuffix(".symbols.json") }
for file in files {
    let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
    for symbol in graph["symbols"] as? [[String: Any]] ?? [] {
        guard let id = (symbol["identifier"] as? [String: Any])?["precise"] as? String else { continue }
        let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
        symbols[id] = Symbol(path: path, declaration: text(of: symbol["declarationFragments"]))
    }
    for relation in graph["relationships"] as? [[String: Any]] ?? [] where relation["kind"] as? String == "conformsTo" {
        conformances.append((relation["source"] as! String, relation["target"] as! String, relation["targetFallback"] as? String))
    }
}
var lines = Set(symbols.values.map { "\($0.path): \($0.declaration)" })
for conformance in conformances {
    // Conformances of a type this module does not declare come with its extensions' graphs; the source is
    // then named by the extension's own symbol, or left out when the graph does not name it.
    guard let source = symbols[conformance.source]?.path else { continue }
    let target = symbols[conformance.target]?.path ?? conformance.fallback ?? conformance.target
    // Implied (by Sendable, by being a type at all) and listed or not by the toolchain's version: noise.
    if ["Swift.SendableMetatype", "Swift.Copyable", "Swift.Escapable"].contains(target) { continue }
    lines.insert("\(source) conforms to \(target)")
}
print(lines.sorted().joined(separator: "\n"))
