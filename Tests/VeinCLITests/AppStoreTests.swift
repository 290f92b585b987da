import Foundation
import Testing
import VeinCore

/// A store an app made through VeinCore is a store the CLI opens: `vein info` and `vein query` read it
/// with the same key file, and see the schema and rows the app declared and saved.
@Suite struct AppStoreTests {
    /// The first version of the notes app (`AppMigrationPlanTests` migrates it).
    typealias Notes = AppMigrationPlanTests.NotesV1

    @Test func theCLIOpensAStoreAnAppMade() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let keys = KeyOptions(keyFile: r.path("notes.key"), environment: [:], keyring: nil)
        let container = try ModelContainer(for: Notes.self, at: r.path("notes.vein"), appID: "com.example.notes", keyProvider: keys)
        for title in ["Plan", "Minutes"] { container.context.insert(Notes.Note(title: title)) }
        try container.context.save()

        let info = try r.vein(["info", "notes.vein", "--key-file", "notes.key"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("app         com.example.notes\n"))
        #expect(info.stdout.hasSuffix("models\n  Note  2 rows\n"))
        let titles = try r.vein(["query", "notes.vein", "--key-file", "notes.key", "Note sort title", "--format", "csv"])
        #expect(titles.status == 0, "\(titles.stderr)")
        #expect(titles.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").dropFirst().first } == ["Minutes", "Plan"])
    }
}
