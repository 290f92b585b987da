import Foundation
import Testing
@testable import Vein

/// `renamedFrom` a stage cannot follow is a plan error, named where it is written: one the old schema
/// answers both ways (its data would be lost with a `drop`), one that names nothing, two that take the
/// same old data. A `renamedFrom` kept from an earlier version (the old schema has the new name) is fine.
@Suite struct RenameRuleTests {
    static func schema(_ version: String, _ models: String) -> String {
        "{ vein: 1, app: \"t\", version: \"\(version)\", models: { \(models) } }"
    }

    static let v1 = schema("1.0.0", """
        Post: { fields: { title: "string", headline: "string?", body: "string" },
                relationships: { tags: { to: "Tag", many: true }, pinned: { to: "Tag" } } },
        Tag: { fields: { label: "string" } },
        Note: { fields: { text: "string" } }
        """)

    /// The plan's issue lines for a stage from `v1` to `v2` with `steps`; empty when it is accepted.
    static func issues(_ v2: String, steps: String = "", from v1: String = v1) -> [String] {
        let text = "{ vein: 1, app: \"t\", schemas: [\(v1), \(v2)], stages: [{ from: \"1.0.0\", to: \"2.0.0\", steps: [\(steps)] }] }"
        do {
            _ = try PlanParser.parse(text, file: "plan.json5")
            return []
        } catch {
            return error.lines
        }
    }

    static let unchangedTagAndNote = #"Tag: { fields: { label: "string" } }, Note: { fields: { text: "string" } }"#
    static let unchangedRelationships = #"relationships: { tags: { to: "Tag", many: true }, pinned: { to: "Tag" } }"#

    @Test func aFieldRenamedFromAnotherWhileItsOwnNameIsInTheOldSchemaIsRefused() {
        // Before: accepted; headline kept the old headline's values and the titles went with the drop.
        let v2 = Self.schema("2.0.0", """
            Post: { fields: { headline: { type: "string?", renamedFrom: "title" }, body: "string" }, \(Self.unchangedRelationships) },
            \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(v2, steps: #"{ drop: { model: "Post", field: "title" } }"#) == [
            #"plan.json5: schemas[1].models.Post.fields.headline.renamedFrom: renamedFrom "title" is ambiguous: Post at 1.0.0 has both "#
            + #"'title' and 'headline'; 'headline' would keep its own old data and that of 'title' would be lost. Remove renamedFrom, "#
            + #"and to take the values of 'title' instead, map them and drop the old 'headline': { map: { model: "Post", set: { headline: "title" } } }, "#
            + #"{ drop: { model: "Post", field: "headline" } }"#,
        ])
        // What the message proposes is a plan that passes.
        let remedied = Self.schema("2.0.0", """
            Post: { fields: { headline: "string?", body: "string" }, \(Self.unchangedRelationships) }, \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(remedied, steps: #"{ map: { model: "Post", set: { headline: "title" } } }, { drop: { model: "Post", field: "headline" } }"#) == [])
    }

    @Test func twoFieldsTakingTheSameOldFieldAreRefused() {
        let twice = Self.schema("2.0.0", """
            Post: { fields: { title: "string", headline: "string?", summary: { type: "string", renamedFrom: "body" },
                              abstract: { type: "string", renamedFrom: "body" } }, \(Self.unchangedRelationships) },
            \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(twice) == [
            #"plan.json5: schemas[1].models.Post.fields.abstract.renamedFrom: renamedFrom "body": 'body' of Post at 1.0.0 already goes to "#
            + #"'summary', and one old field becomes one new field (to copy its values, map them: { map: { model: "Post", set: { abstract: "body" } } })"#,
        ])
        // Kept under its own name and renamed into another: the same mistake.
        let keptAndRenamed = Self.schema("2.0.0", """
            Post: { fields: { title: "string", headline: "string?", body: "string", copy: { type: "string", renamedFrom: "body" } },
                    \(Self.unchangedRelationships) },
            \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(keptAndRenamed) == [
            #"plan.json5: schemas[1].models.Post.fields.copy.renamedFrom: renamedFrom "body": 'body' of Post at 1.0.0 already goes to "#
            + #"'body', and one old field becomes one new field (to copy its values, map them: { map: { model: "Post", set: { copy: "body" } } })"#,
        ])
    }

    @Test func aRenamedFromThatNamesNothingInTheOldSchemaIsRefused() {
        // Before: accepted; the field started empty (nil) and the old one's values went with a drop.
        let v2 = Self.schema("2.0.0", """
            Post: { fields: { title: "string", heading: { type: "string?", renamedFrom: "hedline" }, body: "string" },
                    \(Self.unchangedRelationships) },
            \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(v2, steps: #"{ drop: { model: "Post", field: "headline" } }"#) == [
            "plan.json5: schemas[1].models.Post.fields.heading.renamedFrom: renamedFrom \"hedline\" names no field of Post at 1.0.0 (did you mean 'headline'?)",
        ])
    }

    @Test func modelsFollowTheSameRules() {
        let post = #"Post: { fields: { title: "string", headline: "string?", body: "string" }, "# + Self.unchangedRelationships + " }"
        let ambiguous = Self.schema("2.0.0", "\(post), Tag: { fields: { label: \"string\" } }, Note: { renamedFrom: \"Tag\", fields: { text: \"string\" } }")
        #expect(Self.issues(ambiguous) == [
            "plan.json5: schemas[1].models.Note.renamedFrom: renamedFrom \"Tag\" is ambiguous: 1.0.0 has both 'Tag' and 'Note'; "
            + "'Note' would keep its own old data and that of 'Tag' would be lost. Remove renamedFrom",
        ])
        let twice = Self.schema("2.0.0", "\(post), Tag: { fields: { label: \"string\" } }, Memo: { renamedFrom: \"Note\", fields: { text: \"string\" } }, "
                                + "Jot: { renamedFrom: \"Note\", fields: { text: \"string\" } }")
        #expect(Self.issues(twice) == [
            "plan.json5: schemas[1].models.Jot.renamedFrom: renamedFrom \"Note\": 'Note' of 1.0.0 already goes to 'Memo', and one old model becomes one new model",
        ])
        let nothing = Self.schema("2.0.0", "\(post), Tag: { fields: { label: \"string\" } }, Memo: { renamedFrom: \"Nte\", fields: { text: \"string\" } }")
        #expect(Self.issues(nothing, steps: #"{ dropModel: "Note" }"#) == [
            "plan.json5: schemas[1].models.Memo.renamedFrom: renamedFrom \"Nte\" names no model of 1.0.0 (did you mean 'Note'?)",
        ])
    }

    @Test func relationshipsFollowTheSameRules() {
        let v2 = Self.schema("2.0.0", """
            Post: { fields: { title: "string", headline: "string?", body: "string" },
                    relationships: { tags: { to: "Tag", many: true }, pinned: { to: "Tag", renamedFrom: "tags" }, labels: { to: "Tag", many: true, renamedFrom: "tgs" } } },
            \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(v2) == [
            "plan.json5: schemas[1].models.Post.relationships.pinned.renamedFrom: renamedFrom \"tags\" is ambiguous: Post at 1.0.0 has both "
            + "'tags' and 'pinned'; 'pinned' would keep its own old data and that of 'tags' would be lost. Remove renamedFrom",
            "plan.json5: schemas[1].models.Post.relationships.labels.renamedFrom: renamedFrom \"tgs\" names no relationship of Post at 1.0.0 (did you mean 'tags'?)",
        ])
    }

    /// The fields of a renamed model are checked against the model it comes from.
    @Test func aRenamedModelsFieldsAreCheckedAgainstItsOldModel() {
        let v2 = Self.schema("2.0.0", """
            Article: { renamedFrom: "Post", fields: { title: "string", headline: { type: "string?", renamedFrom: "title" }, body: "string" },
                       \(Self.unchangedRelationships) },
            \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(v2) == [
            "plan.json5: schemas[1].models.Article.fields.headline.renamedFrom: renamedFrom \"title\" is ambiguous: Post at 1.0.0 has both "
            + "'title' and 'headline'; 'headline' would keep its own old data and that of 'title' would be lost. Remove renamedFrom, and to "
            + "take the values of 'title' instead, map them and drop the old 'headline': { map: { model: \"Article\", set: { headline: \"title\" } } }, "
            + "{ drop: { model: \"Post\", field: \"headline\" } }",
        ])
    }

    /// SwiftData keeps `originalName` in later versions: a renamedFrom whose new name the old schema has
    /// carries by that name, as before.
    @Test func aRenamedFromKeptFromAnEarlierVersionStillCarriesByName() throws {
        let v2 = Self.schema("2.0.0", """
            Post: { fields: { headline: { type: "string?", renamedFrom: "subject" }, title: "string", body: "string" },
                    \(Self.unchangedRelationships) },
            \(Self.unchangedTagAndNote)
            """)
        #expect(Self.issues(v2) == [])
    }

    /// A schema given by path: the issue is under the schema's place in the plan, with the path in the file.
    @Test func aSchemaFileNamesItsOwnPath() throws {
        let dir = try TempDir()
        try Self.v1.write(toFile: dir.path("v1.json5"), atomically: true, encoding: .utf8)
        try Self.schema("2.0.0", """
            Post: { fields: { title: "string", headline: "string?", summary: { type: "string", renamedFrom: "bdy" } }, \(Self.unchangedRelationships) },
            \(Self.unchangedTagAndNote)
            """).write(toFile: dir.path("v2.json5"), atomically: true, encoding: .utf8)
        let plan = dir.path("plan.json5")
        try #"{ vein: 1, app: "t", schemas: ["v1.json5", "v2.json5"], stages: [{ from: "1.0.0", to: "2.0.0", steps: [{ drop: { model: "Post", field: "body" } }] }] }"#
            .write(toFile: plan, atomically: true, encoding: .utf8)
        #expect(throws: ManifestError(file: plan, issues: [ManifestIssue(
            path: "schemas[1]", message: "\(dir.path("v2.json5")): models.Post.fields.summary.renamedFrom: renamedFrom \"bdy\" names no field of Post at 1.0.0 (did you mean 'body'?)")])) {
            try PlanParser.load(path: plan)
        }
    }
}
