import Foundation
import Testing
import VeinCore

/// What an app ships, run by the CLI: its `SchemaMigrationPlan` written as a plan file is what
/// `vein migrate check` checks and `vein migrate` runs; its default key provider keeps the key where
/// `vein info` finds it with no flags.
@Suite struct AppMigrationPlanTests {
    enum NotesV1: VersionedSchema {
        static let version = ModelVersion(0, 1, 0)
        static let models: [any PersistentModel.Type] = [Note.self]
        @Model final class Note {
            var title: String
            var words: Int = 0
            init(title: String) { self.title = title }
        }
    }

    enum NotesV2: VersionedSchema {
        static let version = ModelVersion(0, 2, 0)
        static let models: [any PersistentModel.Type] = [Note.self]
        @Model final class Note {
            var title: String
            var slug: String
            init(title: String, slug: String) { self.title = title; self.slug = slug }
        }
    }

    enum NotesPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [NotesV1.self, NotesV2.self]
        static let stages: [MigrationStage] = [
            .custom(from: NotesV1.self, to: NotesV2.self, steps: [
                .map(NotesV2.Note.self, ["slug": "title.lowercased()"]),
                .drop(NotesV1.Note.self, "words"),
            ]),
        ]
    }

    enum CarelessNotesPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [NotesV1.self, NotesV2.self]
        static let stages: [MigrationStage] = [.lightweight(from: NotesV1.self, to: NotesV2.self)]
    }

    enum FirstNotesPlan: SchemaMigrationPlan {
        static let schemas: [any VersionedSchema.Type] = [NotesV1.self]
        static let stages: [MigrationStage] = []
    }

    @Test func theCLIChecksAndRunsThePlanTheAppShips() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try NotesPlan.write(to: r.path("plan.json"), appID: "com.example.notes")
        let check = try r.vein(["migrate", "check", "plan.json"])
        #expect(check.status == 0, "\(check.stderr)")

        try CarelessNotesPlan.write(to: r.path("careless.json"), appID: "com.example.notes")
        let careless = try r.vein(["migrate", "check", "careless.json"])
        #expect(careless.status == 65, "\(careless.stdout)\(careless.stderr)")

        let keys = KeyFileKeyProvider(path: r.path("notes.key"))
        let v1 = try ModelContainer(NotesV1.self, migration: FirstNotesPlan.self, at: r.path("notes.vein"),
                                    appID: "com.example.notes", keyProvider: keys)
        let note = NotesV1.Note(title: "Minutes")
        note.words = 120
        v1.context.insert(note)
        try v1.context.save()

        let migrate = try r.vein(["migrate", "notes.vein", "--plan", "plan.json", "--key-file", "notes.key"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let v2 = try ModelContainer(NotesV2.self, migration: NotesPlan.self, at: r.path("notes.vein"),
                                    appID: "com.example.notes", keyProvider: keys)
        #expect(!v2.needsMigration, "the CLI migrated it to what the app declares")
        #expect(try v2.migrate().stages.isEmpty, "and recorded the stage the app's plan has (same checksum)")
        #expect(try v2.context.fetch(NotesV2.Note.self).map(\.slug) == ["minutes"])
    }

    /// Runs `childCreatesAStoreWithTheDefaultProvider` in a test process of its own, whose environment
    /// reaches a private gnome-keyring (or no Secret Service at all).
    static func runChild(_ r: VeinRunner, secretService: Bool, then script: String = "") throws -> VeinRunner.Result {
        let testBinary = ProcessInfo.processInfo.arguments[0]
        let child = "'\(testBinary)' --testing-library swift-testing --filter 'childCreatesAStoreWithTheDefaultProvider' >child.out 2>&1; grep -E '^(created|error:)' child.out\n"
        let environment = ["VEIN_APP_KEYRING_STORE": r.path("notes.vein")]
        if secretService {
            return try r.run(VeinRunner.withSecretService, ["bash", "-c", child + script],
                             environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": ""]) { $1 })
        }
        return try r.run("bash", ["-c", child + script], environment: environment)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["VEIN_APP_KEYRING_STORE"] != nil))
    func childCreatesAStoreWithTheDefaultProvider() throws {
        let path = ProcessInfo.processInfo.environment["VEIN_APP_KEYRING_STORE"]!
        do {
            let container = try ModelContainer(NotesV1.self, migration: FirstNotesPlan.self, at: path, appID: "com.example.notes")
            container.context.insert(NotesV1.Note(title: "Plan"))
            try container.context.save()
            print("created")
        } catch {
            print("error: \(error)")
        }
    }

    @Test func theDefaultProviderKeepsTheKeyWhereVeinInfoFindsIt() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let realStore = r.directory.resolvingSymlinksInPath().path + "/notes.vein"
        let result = try Self.runChild(r, secretService: true, then: """
            '\(VeinRunner.binary)' query notes.vein 'Note' --format csv | cut -d, -f2
            secret-tool search --all store '\(realStore)' 2>&1 | grep -E '^attribute' | sort
            """)
        #expect(result.stdout == """
            created
            title
            Plan
            attribute.app = com.example.notes
            attribute.state = current
            attribute.store = \(realStore)

            """, "\(result.stderr)")
    }

    @Test func withNoSecretServiceTheDefaultProviderCreatesNothing() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let result = try Self.runChild(r, secretService: false, then: "echo ---; ls")
        #expect(result.stdout.hasPrefix("error: no key for "), "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("(the Secret Service is not available: "))
        #expect(result.stdout.hasSuffix("---\nchild.out\n"), "no store without a key: \(result.stdout)")
    }
}
