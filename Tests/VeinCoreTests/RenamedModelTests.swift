import Foundation
import Testing
import VeinCore

/// `@Model(originalName:)`: a model renamed between two versions keeps its rows in a lightweight migration,
/// as the manifest's model `renamedFrom` does for the CLI.
@Suite struct RenamedModelTests {
    enum NotesV1: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Note.self]
        @Model final class Note {
            var text: String
            init(text: String) { self.text = text }
        }
    }

    enum NotesV2: VersionedSchema {
        static let version = ModelVersion(2, 0, 0)
        static let models: [any PersistentModel.Type] = [Memo.self]
        @Model(originalName: "Note") final class Memo {
            var text: String
            init(text: String) { self.text = text }
        }
    }

    enum Plan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [NotesV1.self, NotesV2.self]
        static let stages: [MigrationStage] = [.lightweight(from: NotesV1.self, to: NotesV2.self)]
    }

    @Test func aRenamedModelKeepsItsRowsInALightweightMigration() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/notes.vein"
        let old = try ModelContainer(for: NotesV1.self, at: path, appID: "com.example.notes", keyProvider: ModelContainerTests.keys(folder))
        try old.context.insert(NotesV1.Note(text: "kept"))
        try old.context.save()
        #expect(try NotesV2.manifest(appID: "a").model(named: "Memo")?.renamedFrom == "Note")

        let container = try ModelContainer(NotesV2.self, migration: Plan.self, at: path, appID: "com.example.notes",
                                           keyProvider: ModelContainerTests.keys(folder))
        try container.migrate()
        #expect(try container.context.fetch(NotesV2.Memo.self).map(\.text) == ["kept"])
    }
}
