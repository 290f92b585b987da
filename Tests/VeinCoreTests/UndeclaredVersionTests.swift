import Testing
import VeinCore

/// A schema that declares neither `version` nor `versionIdentifier` (each defaults to the other): the
/// container throws what to declare instead of recursing until the stack runs out.
@Suite struct UndeclaredVersionTests {
    enum Versionless: VersionedSchema {
        static let models: [any PersistentModel.Type] = [NoTrapSchema.Shelf.self, NoTrapSchema.Book.self]
    }

    @Test func aSchemaWithNoVersionIsAnError() throws {
        let expected = "Versionless declares no version: add `static let version = ModelVersion(1, 0, 0)` "
            + "(or SwiftData's `static let versionIdentifier = Schema.Version(1, 0, 0)`)"
        let error = #expect(throws: ModelContainerError.noVersion(schema: "Versionless")) {
            try ModelContainer(for: Versionless.self, at: nil, appID: "com.example.notrap")
        }
        #expect(error?.description == expected)
        #expect(throws: ModelContainerError.noVersion(schema: "Versionless")) { try Versionless.manifest(appID: "a") }
        #expect(throws: ModelContainerError.noVersion(schema: "Versionless"), "SwiftData's Schema(versionedSchema:) too") {
            try ModelContainer(for: Schema(versionedSchema: Versionless.self), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(Versionless.version == ModelVersion(0, 0, 0))
        #expect(NoTrapSchema.versionIdentifier == ModelVersion(1, 0, 0), "one declared: the other reads it")
        #expect(try NoTrapSchema.manifest(appID: "a").version == ModelVersion(1, 0, 0))
    }
}
