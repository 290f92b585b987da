import Foundation
import Testing
import Vein

/// Vein as an app uses it: `import Vein`, nothing `package`, no `@testable`. The second test type-checks
/// this very file against the built module from outside the package (scripts/check-public-api), where a
/// `package` or internal name fails to compile: the surface below is what an app developer has.
@Suite struct PublicAPITests {
    static let manifest = """
        { vein: 1, app: "com.example.notes", version: "1.0.0", models: {
            Notebook: { fields: { name: "string" },
                        relationships: { notes: { to: "Note", many: true, inverse: "notebook", deleteRule: "cascade" } } },
            Note: { fields: { title: "string", words: { type: "int", default: 0 }, editedAt: "date?" },
                    relationships: { notebook: { to: "Notebook", inverse: "notes" } } },
        } }
        """

    static let swiftcFound = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/swiftc")
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("vein-app-\(UUID().uuidString)-\(name)").path
    }

    @Test func createSaveFetchAndDelete() throws {
        let path = Self.temporaryPath("notes.vein")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let manifest = try ManifestParser.parse(Self.manifest, file: "notes.json5")
        _ = try StoreCreator.create(at: path, manifest: manifest, protection: .plaintext)
        let store = try Store.open(path, keys: KeyOptions(keyring: nil))

        let context = ObjectContext(store: store)
        let notebook = try context.insert("Notebook", ["name": .string("Work")])
        for (title, words) in [("Plan", 120), ("Minutes", 800), ("Draft", 40)] {
            try context.insert("Note", ["title": .string(title), "words": .int(Int64(words)), "notebook": .string(notebook.id)])
        }
        try context.save()

        let note = try #require(store.manifest.model(named: "Note"))
        let long = try TypeChecker.checkPredicate("words > 100", model: note, manifest: store.manifest)
        let reader = ObjectContext(store: store)
        let found = try reader.fetch(ObjectFetch(model: "Note", predicate: long, sortBy: [.init("words", ascending: false)]))
        #expect(try found.map { try $0["title"] } == [.string("Minutes"), .string("Plan")])
        let book = try #require(try reader.object("Notebook", id: notebook.id))
        #expect(try book.related("notes").count == 3)

        try reader.delete(book)
        try reader.save()
        #expect(try ObjectContext(store: store).fetchCount(ObjectFetch(model: "Note")) == 0, "cascaded")
    }

    @Test func errorsDescribeThemselves() throws {
        let missing = Self.temporaryPath("missing.vein")
        let error = try #require(throws: StoreError.self) { try Store.open(missing, keys: KeyOptions(keyring: nil)) }
        #expect("\(error)" == "no such store: \(missing)")
        #expect(ContextError.unknownModel("Nope").description == "no model 'Nope'")
        #expect(KeyError.unusableKey(source: .environment("NOTES_KEY"), problem: .emptyKey).description
                == "the key from environment variable NOTES_KEY is empty")
        #expect(MigrationError.backwards(store: "2.0.0", target: "1.0.0").description
                == "the store is at 2.0.0, past the target 1.0.0: migrations only go forward")
    }

    /// This file, compiled as another package's code against the built module.
    @Test(.enabled(if: swiftcFound, "swiftc is not on PATH: the check compiles this file as an app would"))
    func thisFileUsesOnlyThePublicAPI() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/check-public-api").path, #filePath]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
    }
}
