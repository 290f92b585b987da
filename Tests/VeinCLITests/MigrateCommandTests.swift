import Foundation
import Testing
import Vein

/// `vein migrate`, `migrate status` and `migrate check` end to end, including a SIGKILL in the middle of a
/// migration and two migrators at once.
@Suite struct MigrateCommandTests {
    static let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path

    /// A plaintext blog store at 0.0.1 with `posts` posts (seeded through the engine, which is quicker than
    /// one `vein query` per row), each with one small and one large attachment.
    func store(posts: Int) throws -> VeinRunner {
        let r = try VeinRunner()
        try #require(try r.vein(["create", "b.vein", "--schema", VeinRunner.exampleManifest, "--plaintext"]).status == 0)
        let context = ObjectContext(store: try Store.open(r.path("b.vein"), keys: KeyOptions(keyring: nil)))
        for i in 0..<posts {
            let post = try context.insert("Post", ["title": .string("Post \(i)"), "content": .string(String(repeating: "x", count: 100))])
            for size in [1.0, 200.0] {
                _ = try context.insert("Attachment", ["name": .string("a\(i)-\(Int(size))"), "fileType": .string("png"),
                                                      "sizeMiB": .double(size), "post": .string(post.id)])
            }
        }
        try context.save()
        return r
    }

    @Test func migrateStatusAndDryRun() throws {
        let r = try store(posts: 5)
        defer { r.cleanUp() }
        var result = try r.vein(["migrate", "status", "b.vein", "--plan", Self.plan, "--exit-code"])
        #expect(result.status == 1 && result.stdout.contains("pending  0.0.1 → 0.0.2") && result.stderr.isEmpty)
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("b.vein")))
        result = try r.vein(["migrate", "b.vein", "--plan", Self.plan, "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("delete Attachment where sizeMiB > 100: 5 rows deleted"))
        #expect(result.stdout.contains("the result matches the 0.1.0 schema"))
        #expect(result.stderr.contains("dry run: b.vein was not changed"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("b.vein"))) == before)
        result = try r.vein(["migrate", "b.vein", "--plan", Self.plan, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONParser.parse(result.stdout)
        #expect(report.objectValue?["to"] == .string("0.1.0"))
        #expect(try r.vein(["verify", "b.vein"]).status == 0)
        result = try r.vein(["migrate", "status", "b.vein", "--plan", Self.plan, "--exit-code"])
        #expect(result.status == 0 && result.stdout.contains("up to date"))
        result = try r.vein(["migrate", "b.vein", "--plan", Self.plan])
        #expect(result.status == 0 && result.stdout.contains("already at 0.1.0"))
    }

    @Test func unhandledDataExits65WithTheReport() throws {
        let r = try store(posts: 3)
        defer { r.cleanUp() }
        try r.write("plan.json5", """
            { vein: 1, app: "com.example.blog", schemas: ["\(VeinRunner.exampleManifest)", {
                vein: 1, app: "com.example.blog", version: "0.0.2",
                models: { Post: { fields: { title: "string", views: { type: "int", default: 0 }, publishedAt: "date?" } } } }],
              stages: [{ from: "0.0.1", to: "0.0.2" }] }
            """)
        let result = try r.vein(["migrate", "b.vein", "--plan", "plan.json5"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("vein: error: stage 0.0.1 → 0.0.2 would lose or could not carry data; nothing was changed"))
        #expect(result.stderr.contains("Attachment: 6 rows in a model that 0.0.2 removes"))
        #expect(result.stderr.contains("Post.content: 3 rows hold a value in a field that 0.0.2 removes"))
        #expect(result.stderr.contains("hint: add { dropModel: \"Attachment\" }"))
        let check = try r.vein(["migrate", "check", "plan.json5"])
        #expect(check.status == 65 && check.stderr.contains("Post.content: 12 rows hold a value"))
        #expect(try r.vein(["migrate", "check", Self.plan]).status == 0)
        let broken = try r.vein(["migrate", "check", "nope.json5"])
        #expect(broken.status == 66)
    }

    @Test func aSecondMigratorGetsBusyAndNeverInterleaves() throws {
        let r = try store(posts: 2)
        defer { r.cleanUp() }
        // Another writer holds the store's write lock: migrate exits 75 at once and changes nothing.
        let holder = try Database(path: r.path("b.vein"), key: nil)
        try holder.execute("BEGIN IMMEDIATE")
        let busy = try r.vein(["migrate", "b.vein", "--plan", Self.plan])
        #expect(busy.status == 75)
        #expect(busy.stderr.contains("busy"))
        try holder.execute("ROLLBACK")
        try holder.close()
        // Two migrators started together: one migrates; the other is busy or finds nothing left to do.
        let both = try r.run("/bin/sh", ["-c", """
            "$0" migrate b.vein --plan "$1" >one.out 2>&1 & a=$!
            "$0" migrate b.vein --plan "$1" >two.out 2>&1 & b=$!
            wait $a; echo "$?"; wait $b; echo "$?"
            """, VeinRunner.binary, Self.plan])
        let codes = both.stdout.split(separator: "\n").map(String.init)
        #expect(codes.count == 2 && codes.contains("0") && codes.allSatisfy { $0 == "0" || $0 == "75" }, "\(codes)")
        #expect(try Store.open(r.path("b.vein"), keys: KeyOptions(keyring: nil)).meta.schemaVersion == "0.1.0")
        #expect(try r.vein(["verify", "b.vein"]).status == 0)
    }

    /// kill -9 at random points of a long migration: the store always opens, whole, at 0.0.1 or 0.1.0.
    @Test func sigkillLeavesTheOldStateOrTheNew() throws {
        let r = try store(posts: 4000)
        defer { r.cleanUp() }
        let pristine = try Data(contentsOf: URL(fileURLWithPath: r.path("b.vein")))
        var seen: Set<String> = []
        for attempt in 0..<8 {
            try pristine.write(to: URL(fileURLWithPath: r.path("b.vein")))
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: r.path("b.vein") + suffix) }
            let delay = Double.random(in: 0.02...0.6)
            _ = try r.run("/bin/sh", ["-c", "\"$0\" migrate b.vein --plan \"$1\" >/dev/null 2>&1 & p=$!; sleep \(delay); kill -9 $p; wait $p; true",
                                      VeinRunner.binary, Self.plan])
            let store = try Store.open(r.path("b.vein"), keys: KeyOptions(keyring: nil))
            let version = store.meta.schemaVersion
            seen.insert(version)
            let posts = try store.database.scalar("SELECT count(*) FROM Post")
            let attachments = try store.database.scalar("SELECT count(*) FROM Attachment")
            #expect(version == "0.0.1" || version == "0.1.0", "attempt \(attempt)")
            #expect(posts == .integer(4000), "attempt \(attempt) at \(version)")
            #expect(attachments == .integer(version == "0.0.1" ? 8000 : 4000), "attempt \(attempt) at \(version)")
            #expect(try StoreVerifier.verify(store).isClean, "attempt \(attempt) at \(version)")
        }
        #expect(!seen.isEmpty)
    }

    /// On a terminal (a pty from script(1)) migrate draws a progress bar on standard error and erases it.
    @Test func progressBarOnlyOnATerminal() throws {
        let r = try store(posts: 3)
        defer { r.cleanUp() }
        let tty = try r.run("/usr/bin/script", ["-qec", "\"\(VeinRunner.binary)\" migrate b.vein --plan \"\(Self.plan)\" --dry-run", "/dev/null"])
        #expect(tty.stdout.contains("] 0/10 0.0.1 → 0.0.2: deleting"), "\(tty.stdout)")
        #expect(tty.stdout.contains("\r\u{1B}[2K"))
        let piped = try r.vein(["migrate", "b.vein", "--plan", Self.plan, "--dry-run"])
        #expect(!piped.stderr.contains("deleting") && !piped.stderr.contains("\u{1B}"))
    }

    @Test func checkWithAFixtureUsesItsRows() throws {
        let r = try store(posts: 2)
        defer { r.cleanUp() }
        try #require(try r.vein(["export", "b.vein", "-o", "fixture.jsonl"]).status == 0)
        let good = try r.vein(["migrate", "check", Self.plan, "--fixture", "fixture.jsonl"])
        #expect(good.status == 0 && good.stderr.contains("passes: every stage carries the rows of fixture.jsonl to 0.1.0"), "\(good.stderr)")
        #expect(good.stdout.contains("delete Attachment where sizeMiB > 100: 2 rows deleted"))
        try r.write("lossy.json5", """
            { vein: 1, app: "com.example.blog", schemas: ["\(VeinRunner.exampleManifest)", {
                vein: 1, app: "com.example.blog", version: "0.0.2",
                models: { Post: { fields: { title: "string", views: { type: "int", default: 0 }, publishedAt: "date?" },
                                  relationships: { attachments: { to: "Attachment", many: true, inverse: "post" } } },
                          Attachment: { fields: { name: "string", fileType: { type: "enum", values: ["png", "jpg", "gif", "swift"] },
                                                  sizeMiB: "double", data: "data? lazy" },
                                        relationships: { post: { to: "Post", inverse: "attachments" } } } } }],
              stages: [{ from: "0.0.1", to: "0.0.2" }] }
            """)
        let lossy = try r.vein(["migrate", "check", "lossy.json5", "--fixture", "fixture.jsonl"])
        #expect(lossy.status == 65 && lossy.stderr.contains("Post.content: 2 rows hold a value in a field that 0.0.2 removes"), "\(lossy.stderr)")
        #expect(try r.vein(["migrate", "check", Self.plan, "--fixture", "nope.jsonl"]).status == 66)
    }

    @Test func plansThatDoNotFitTheStoreAreRefused() throws {
        let r = try store(posts: 1)
        defer { r.cleanUp() }
        func plan(app: String, fields: String) -> String {
            "{ vein: 1, app: \"\(app)\", schemas: [{ vein: 1, app: \"\(app)\", version: \"0.0.1\", models: { Post: { fields: { \(fields) } } } }], stages: [] }"
        }
        try r.write("other-app.json5", plan(app: "other.app", fields: "title: \"string\""))
        let app = try r.vein(["migrate", "b.vein", "--plan", "other-app.json5"])
        #expect(app.status == 65 && app.stderr.contains("vein: error: the plan is for app \"other.app\", the store belongs to \"com.example.blog\""))
        try r.write("other-schema.json5", plan(app: "com.example.blog", fields: "title: \"string\""))
        let schema = try r.vein(["migrate", "b.vein", "--plan", "other-schema.json5"])
        #expect(schema.status == 65 && schema.stderr.contains("vein: error: the store's schema at 0.0.1 is not the plan's schema 0.0.1"))
        let unknown = try r.vein(["migrate", "b.vein", "--plan", Self.plan, "--to", "9.9.9"])
        #expect(unknown.status == 64 && unknown.stderr.contains("--to 9.9.9 is not a version of the plan (0.0.1, 0.0.2, 0.1.0)"))
        #expect(try r.vein(["migrate", "b.vein", "--plan", Self.plan]).status == 0)
        let backwards = try r.vein(["migrate", "b.vein", "--plan", Self.plan, "--to", "0.0.2"])
        #expect(backwards.status == 64 && backwards.stderr.contains("the store is at 0.1.0, past --to 0.0.2: migrations only go forward"))
        let older = try r.vein(["migrate", "status", "b.vein", "--plan", "other-schema.json5"])
        #expect(older.status == 65 && older.stderr.contains("the store is at 0.1.0, newer than the plan's last version 0.0.1"))
    }

    /// `renamedFrom: "title"` on a field whose own name the old schema has too, and two fields renamed
    /// from one: plan errors (65) at the schema file's place, before the store is touched. Before: the
    /// migration ran, headline kept the old headline and every title went with the drop.
    @Test func renamesAPlanCannotFollowAreRefused() throws {
        let r = try VeinRunner()
        defer { r.cleanUp() }
        try r.write("v1.json5", """
            { vein: 1, app: "a", version: "1.0.0", models: { Post: { fields: { title: "string", headline: "string?", body: "string" } } } }
            """)
        try r.write("v2.json5", """
            { vein: 1, app: "a", version: "2.0.0", models: { Post: { fields: {
                headline: { type: "string?", renamedFrom: "title" },
                summary: { type: "string", renamedFrom: "body" }, abstract: { type: "string?", renamedFrom: "body" } } } } }
            """)
        try r.write("plan.json5", #"{ vein: 1, app: "a", schemas: ["v1.json5", "v2.json5"], stages: [{ from: "1.0.0", to: "2.0.0", steps: [{ drop: { model: "Post", field: "title" } }] }] }"#)
        try #require(try r.vein(["create", "s.vein", "--schema", "v1.json5", "--plaintext"]).status == 0)
        try #require(try r.vein(["query", "s.vein", #"insert Post(title: "kept", body: "b")"#]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein")))
        for arguments in [["migrate", "check", "plan.json5"], ["migrate", "s.vein", "--plan", "plan.json5"]] {
            let result = try r.vein(arguments)
            #expect(result.status == 65, "\(arguments)")
            #expect(result.stderr == """
                vein: error: plan.json5: schemas[1]: v2.json5: models.Post.fields.headline.renamedFrom: renamedFrom "title" is ambiguous: \
                Post at 1.0.0 has both 'title' and 'headline'; 'headline' would keep its own old data and that of 'title' would be lost. \
                Remove renamedFrom, and to take the values of 'title' instead, map them and drop the old 'headline': \
                { map: { model: "Post", set: { headline: "title" } } }, { drop: { model: "Post", field: "headline" } }
                vein: error: plan.json5: schemas[1]: v2.json5: models.Post.fields.abstract.renamedFrom: renamedFrom "body": \
                'body' of Post at 1.0.0 already goes to 'summary', and one old field becomes one new field \
                (to copy its values, map them: { map: { model: "Post", set: { abstract: "body" } } })

                """, "\(arguments)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: r.path("s.vein"))) == before)
    }
}
