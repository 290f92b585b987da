import Foundation
@testable import Vein

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TempDir {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("vein-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }

    /// The names in the directory, sorted (hidden files included).
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    func write(_ name: String, _ text: String, mode: Int = 0o600) throws {
        let p = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: p))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: p)
    }

    func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    /// A new plaintext store `name` in this directory with `manifest`, opened.
    func plaintextStore(_ name: String, manifest: SchemaManifest) throws -> Store {
        _ = try StoreCreator.create(at: path(name), manifest: manifest, protection: .plaintext)
        return try Store.open(path(name), keys: KeyOptions(keyring: nil))
    }
}

/// A tiny deterministic random number generator (SplitMix64) for reproducible test data.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Fixtures {
    /// The example manifest of docs/manifest.md, read from the package's examples folder.
    static var blogPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/blog.json5").path
    }

    static func blogText() throws -> String { try String(contentsOfFile: blogPath, encoding: .utf8) }

    static func blogManifest() throws -> SchemaManifest { try ManifestParser.parse(try blogText(), file: "blog.json5") }

    /// A 64-hex-digit raw key made of one repeated byte.
    static func hexKey(_ byte: UInt8) -> String { String(repeating: String(format: "%02x", byte), count: 32) }
}
