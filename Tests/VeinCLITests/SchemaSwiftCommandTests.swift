import Foundation
import Testing

/// `vein schema STORE --swift` through the built binary: the @Model declarations of a store's schema,
/// exactly, and the messages when Swift cannot declare the schema or the options conflict.
@Suite struct SchemaSwiftCommandTests {
    @Test func printsTheModelDeclarationsOfTheStoresSchema() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("notes.json5", """
            { vein: 1, app: "com.example.notes", version: "1.2.0",
              models: {
                Note: { fields: { title: "string unique", body: "string? lazy", stars: { type: "int", default: 3 },
                                  mood: { type: "enum", values: ["calm", "in-a-hurry"], default: "calm" }, default: "bool?" },
                        relationships: { tags: { to: "Tag", many: true, inverse: "note", deleteRule: "cascade" } },
                        indexes: [["stars", "title"]] },
                Tag: { fields: { label: "string" }, relationships: { note: { to: "Note", inverse: "tags" } } },
              } }
            """)
        #expect(try r.vein(["create", "n.vein", "--schema", "notes.json5", "--plaintext"]).status == 0)
        let result = try r.vein(["schema", "n.vein", "--swift"])
        #expect(result.stderr == "")
        #expect(result.status == 0)
        #expect(result.stdout == """
            // The schema 1.2.0 of com.example.notes as Swift declarations.
            import Foundation
            import VeinCore

            enum V1_2_0: VersionedSchema {
                static let version = ModelVersion(1, 2, 0)
                static let models: [any PersistentModel.Type] = [Note.self, Tag.self]

                @Model
                final class Note {
                    #Index<Note>([\\.stars, \\.title])
                    @Unique
                    var title: String
                    @LazyField
                    var body: String?
                    var stars: Int = 3
                    var mood: Mood = Mood.calm
                    var `default`: Bool?
                    @Relationship(inverse: \\Tag.note, deleteRule: .cascade)
                    var tags: [Tag] = []

                    init(title: String, body: String? = nil, stars: Int = 3, mood: Mood = Mood.calm, `default`: Bool? = nil) {
                        self.title = title
                        self.body = body
                        self.stars = stars
                        self.mood = mood
                        self.`default` = `default`
                    }

                    enum Mood: String, RawRepresentablePersistable {
                        case calm
                        case inAHurry = "in-a-hurry"
                    }
                }

                @Model
                final class Tag {
                    var label: String
                    @Relationship
                    var note: Note?

                    init(label: String) {
                        self.label = label
                    }
                }
            }

            """)
    }

    @Test func aSchemaSwiftCannotDeclareIsRefusedNamingThePlace() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("m.json5", """
            { vein: 1, app: "com.example.m", version: "1.0.0",
              models: { Event: { fields: { at: { type: "date", default: "2026-01-01T00:00:00.000000Z" } } } } }
            """)
        #expect(try r.vein(["create", "m.vein", "--schema", "m.json5", "--plaintext"]).status == 0)
        let result = try r.vein(["schema", "m.vein", "--swift"])
        #expect(result.stdout == "")
        #expect(result.stderr == """
            vein: error: models.Event.fields.at.default: a date default cannot be declared in Swift yet (@Model writes string, \
            int, double, bool, uuid and enum defaults to the manifest)
            hint: 'vein schema STORE --json' prints the manifest itself

            """)
        #expect(result.status == 65)
    }

    @Test func swiftAndJSONTogetherAreAUsageError() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        let result = try r.vein(["schema", "any.vein", "--swift", "--json"])
        #expect(result.stderr == "vein: error: choose one of --json and --swift\nhint: see 'vein help schema'\n")
        #expect(result.status == 64)
    }
}
