import Foundation
import Testing
@testable import Vein

/// A migration as a sync barrier (docs/sync.md#migrations): the first replica to migrate publishes its
/// store at the new version; the others are refused until they migrate, then start from it and write
/// again, at the new version, what their own commits changed that it does not hold; every replica ends
/// with the same rows, and nothing a replica wrote at either version is lost.
@Suite struct SyncMigrationTests {
    /// 1.0.0 (the history tests' schema) to 2.0.0: Post.title becomes headline, a new summary is mapped from
    /// the title, Tag becomes Label (so the many-to-many's link table changes name and side), and Folder
    /// goes with Post.folder.
    static let planText = """
        { vein: 1, app: "test.history",
          schemas: [\(ChangeLogReplayTests.manifestText),
            { vein: 1, app: "test.history", version: "2.0.0", models: {
              Post: { fields: { headline: { type: "string", renamedFrom: "title" }, views: "int", score: "double?", slug: "string? unique",
                                cover: "data?", summary: "string?" },
                      relationships: { attachments: { to: "Attachment", many: true, inverse: "post", deleteRule: "cascade" },
                                       tags: { to: "Label", many: true, inverse: "posts" }, related: { to: "Post", many: true } } },
              Attachment: { fields: { name: "string", sizeMiB: "double" }, relationships: { post: { to: "Post", inverse: "attachments" } } },
              Label: { renamedFrom: "Tag", fields: { name: "string" },
                       relationships: { posts: { to: "Post", many: true, inverse: "tags", deleteRule: "deny" } } },
            } } ],
          stages: [ { from: "1.0.0", to: "2.0.0", steps: [
            { map: { model: "Post", set: { summary: "title.uppercased()" } } },
            { dropModel: "Folder" },
          ] } ] }
        """
    static func plan() throws -> MigrationPlan { try PlanParser.parse(planText, file: "plan.json5") }

    /// Three replicas that share a post "p" and a tag "t", synced.
    final class Trio {
        let replicas: SyncReplicas
        var stores: [Store]
        let post: String, tag: String

        init() throws {
            var ids: (String, String) = ("", "")
            replicas = try SyncReplicas(count: 3) { context in
                let tag = try context.insert("Tag", ["name": .string("t")])
                let post = try context.insert("Post", ["title": .string("p"), "views": .int(1)])
                _ = try context.insert("Folder", ["name": .string("f"), "items": .array([.string(post.id)])])
                ids = (post.id, tag.id)
            }
            stores = replicas.stores
            (post, tag) = ids
            for i in [0, 1, 2, 0] { try sync(i) }
        }

        func session(_ i: Int) throws -> SyncSession { try replicas.session(stores[i]) }

        func sync(_ i: Int) throws {
            try session(i).push()
            try session(i).pull()
        }

        /// One statement as a commit of its own (logged as `vein query`'s are).
        func execute(_ i: Int, _ sql: String, _ arguments: [DatabaseValue] = []) throws {
            try stores[i].transaction(.immediate) { try stores[i].database.execute(sql, arguments) }
        }

        /// What `vein migrate` does on a synced store: sync, migrate, and publish or start from the barrier.
        @discardableResult
        func migrate(_ i: Int, prepared: Bool = true) throws -> SyncSession.MigrationOutcome {
            let plan = try SyncMigrationTests.plan()
            if prepared { try session(i).prepareMigration() }
            try migrateLocally(i, plan)
            return try session(i).finishMigration(plan: plan)
        }

        /// The plan's run alone, and the store opened again at the new version.
        func migrateLocally(_ i: Int, _ plan: MigrationPlan) throws {
            _ = try Migrator(plan: plan).run(on: stores[i])
            let path = stores[i].path
            try stores[i].close()
            stores[i] = try Store.open(path, keys: KeyOptions(keyring: nil))
        }

        func export(_ i: Int) throws -> String { try RandomWrites.export(stores[i], in: replicas.dir) }

        func rows(_ i: Int, _ sql: String) throws -> [String] {
            try stores[i].database.rows(sql).map { $0.map { $0.string ?? $0.int64.map(String.init) ?? "null" }.joined(separator: " ") }
        }
    }

    @Test func everyReplicaCrossesTheBarrierWithItsOwnChanges() throws {
        let t = try Trio()
        // b, still at 1.0.0, renames the post, tags it and writes a post; none of it sent.
        try t.execute(1, #"UPDATE "Post" SET "title" = 'p by b' WHERE "_id" = ?"#, [.text(t.post)])
        let context = ObjectContext(store: t.stores[1])
        try #require(try context.object("Post", id: t.post)).set("tags", .array([.string(t.tag)]))
        let fromB = try context.insert("Post", ["title": .string("from b"), "views": .int(5)]).id
        try context.save()

        #expect(try t.migrate(0) == .published(migration: 1))
        // a, at 2.0.0, changes another field of the same post.
        try t.execute(0, #"UPDATE "Post" SET "views" = 40 WHERE "_id" = ?"#, [.text(t.post)])
        try t.sync(0)

        // b and c are refused until they migrate, and b's changes stay in it.
        let relay = t.replicas.dir.path("relay")
        #expect(throws: SyncError.mustMigrate(relay, migration: 1, version: "1.0.0")) { try t.session(1).push() }
        #expect(throws: SyncError.mustMigrate(relay, migration: 1, version: "1.0.0")) { try t.session(2).pull() }
        #expect(try t.rows(1, #"SELECT "title" FROM "Post" ORDER BY "title""#) == ["from b", "p by b"])

        guard case .rebased(1, let carried) = try t.migrate(1) else { Issue.record("b did not start from the barrier"); return }
        #expect(carried == 3)  // the renamed post, the new post and the link
        #expect(try t.migrate(2) == .rebased(migration: 1, carried: 0))
        for i in [1, 0, 2, 1, 0] { try t.sync(i) }

        let export = try t.export(0)
        for i in [1, 2] { #expect(try t.export(i) == export, "replica \(i) differs") }
        // b's rename reached the new field and the summary mapped from it; a's views stayed; b's link is in
        // the renamed link table (its sides swapped); the folder went with its model.
        #expect(try t.rows(2, #"SELECT "headline", "summary", "views" FROM "Post" WHERE "_id" = ?"#.replacingOccurrences(of: "?", with: "'\(t.post)'"))
                == ["p by b P BY B 40"])
        #expect(try t.rows(2, #"SELECT "owner", "target" FROM "_vein_link_Label_posts""#) == ["\(t.tag) \(t.post)"])
        #expect(try t.rows(2, #"SELECT "headline" FROM "Post" WHERE "_id" = '\#(fromB)'"#) == ["from b"])

        // A replica joined now starts from the barrier and takes what was sent after it.
        let d = try SyncReplicas.join(t.replicas.dir, "d.vein", keyFile: t.replicas.dir.path(t.replicas.keyFile))
        try t.replicas.session(d).pull()
        #expect(try RandomWrites.export(d, in: t.replicas.dir) == export)
        #expect(try SyncState.read(from: d.database)?.migration == 1)

        // Finishing again does nothing.
        #expect(try t.session(1).finishMigration(plan: try Self.plan()) == .current)
    }

    @Test func segmentsSentAtTheOldVersionAfterTheBarrierArePassedOverAndCarriedByTheirReplica() throws {
        let t = try Trio()
        let plan = try Self.plan()
        // a prepares and migrates; b sends a change before a publishes: the barrier does not hold it.
        try t.session(0).prepareMigration()
        try t.migrateLocally(0, plan)
        try t.execute(1, #"UPDATE "Post" SET "views" = 99 WHERE "_id" = ?"#, [.text(t.post)])
        try t.session(1).push()
        #expect(try t.session(0).finishMigration(plan: plan) == .published(migration: 1))
        let barrier = try SyncSnapshotCopy(relay: try SyncRelay.open(t.replicas.dir.path("relay")), keys: t.session(0).keys, kind: .migration,
                                           number: 1, beside: t.stores[0].path)
        defer { barrier.discard() }
        #expect(try barrier.note?.covers[t.session(1).replica] == nil)

        // a passes b's 1.0.0 segment over; c, migrated, does too.
        #expect(try t.session(0).pull().transactions == 0)
        #expect(try t.rows(0, #"SELECT "views" FROM "Post""#) == ["1"])
        try t.migrate(2)
        try t.sync(2)
        // b carries it across when it migrates.
        let outcome = try t.migrate(1)
        #expect(outcome == .rebased(migration: 1, carried: 1))
        for i in [1, 0, 2] { try t.sync(i) }
        for i in 0..<3 { #expect(try t.rows(i, #"SELECT "views" FROM "Post""#) == ["99"], "replica \(i)") }
    }

    @Test func twoReplicasMigratedAtOnceAgreeOnTheFirstToPublish() throws {
        let t = try Trio()
        let plan = try Self.plan()
        for i in [0, 1] { try t.session(i).prepareMigration() }
        try t.execute(1, #"UPDATE "Post" SET "views" = 7 WHERE "_id" = ?"#, [.text(t.post)])
        for i in [0, 1] { try t.migrateLocally(i, plan) }
        #expect(try t.session(0).finishMigration(plan: plan) == .published(migration: 1))
        let outcome = try t.session(1).finishMigration(plan: plan)
        #expect(outcome == .rebased(migration: 1, carried: 1))
        try t.migrate(2)
        for i in [1, 0, 2, 1] { try t.sync(i) }
        #expect(try t.export(1) == t.export(0))
        #expect(try t.export(2) == t.export(0))
        #expect(try t.rows(2, #"SELECT "views" FROM "Post""#) == ["7"])

        // The relay keeps one barrier per migration: a second one of the same number is refused.
        let relay = try SyncRelay.open(t.replicas.dir.path("relay"))
        #expect(throws: SyncError.snapshotTaken(t.replicas.dir.path("relay"), kind: "migration", number: 1)) {
            try relay.backend.writing(.migration, 1) { path in
                // As `SealedFile` places a file: never over another.
                let staged = try StagedFile(target: path, tag: StagedFile.Tag.writing.rawValue, mode: 0o600, placement: .create)
                defer { staged.discard() }
                try staged.write([1])
                try staged.commit()
            }
        }
    }

    /// Killed after the relay took its barrier and before the store recorded it: run again, the replica
    /// starts from its own barrier, and what it wrote after the snapshot is still sent.
    @Test func aPublisherKilledBeforeItRecordedTheBarrierStartsFromItWhenRunAgain() throws {
        let t = try Trio()
        let plan = try Self.plan()
        try t.session(0).prepareMigration()
        try t.migrateLocally(0, plan)
        let path = t.stores[0].path
        try t.stores[0].close()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: path + ".before" + suffix)
        }
        t.stores[0] = try Store.open(path, keys: KeyOptions(keyring: nil))
        #expect(try t.session(0).finishMigration(plan: plan) == .published(migration: 1))
        // The store as it was before it recorded the barrier, with a commit made after.
        try t.stores[0].close()
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
            if FileManager.default.fileExists(atPath: path + ".before" + suffix) {
                try FileManager.default.moveItem(atPath: path + ".before" + suffix, toPath: path + suffix)
            }
        }
        t.stores[0] = try Store.open(path, keys: KeyOptions(keyring: nil))
        #expect(throws: SyncError.mustMigrate(t.replicas.dir.path("relay"), migration: 1, version: "2.0.0")) { try t.session(0).push() }
        try t.execute(0, #"UPDATE "Post" SET "views" = 12 WHERE "_id" = ?"#, [.text(t.post)])
        #expect(try t.session(0).finishMigration(plan: plan) == .rebased(migration: 1, carried: 1))
        for i in [1, 2] { try t.migrate(i) }
        for i in [0, 1, 2, 0] { try t.sync(i) }
        for i in 0..<3 { #expect(try t.rows(i, #"SELECT "views" FROM "Post""#) == ["12"], "replica \(i)") }
    }

    @Test func aMigrationIsRefusedWhileRowsAreSetAside() throws {
        let t = try Trio()
        for (i, title) in [(0, "first"), (1, "second")] {
            let context = ObjectContext(store: t.stores[i])
            _ = try context.insert("Post", ["title": .string(title), "views": .int(1), "slug": .string("taken")])
            try context.save()
        }
        for i in [0, 1, 0] { try t.sync(i) }
        #expect(throws: SyncError.conflictsOpen(t.stores[1].path, count: 1)) { try t.session(1).prepareMigration() }
        #expect(t.stores[1].manifest.version.description == "1.0.0")
        #expect(SyncError.conflictsOpen("s.vein", count: 1).message
                == "s.vein has 1 row set aside for a unique value, which a migration of a synced store would leave behind")
    }

    @Test func aReplicaMigratedByAnotherPlanIsRefusedAndSendsNothing() throws {
        let t = try Trio()
        #expect(try t.migrate(0) == .published(migration: 1))
        // c migrated by another plan, to a schema of the same version.
        let other = try PlanParser.parse(Self.planText.replacingOccurrences(of: #"summary: "string?""#, with: #"summary: "string?", extra: "int?""#),
                                         file: "other.json5")
        try t.migrateLocally(2, other)
        #expect(throws: SyncError.migrationDiffers(t.stores[2].path, migration: 1, version: "2.0.0",
                                                   theirs: "2.0.0 of another schema (their manifests differ)")) {
            try t.session(2).finishMigration(plan: other)
        }
        let unfinished = try #require(try t.session(2).unfinishedMigration())
        #expect(throws: SyncError.mustMigrate(t.replicas.dir.path("relay"), migration: 1, version: "2.0.0")) { try t.session(2).push() }
        #expect(SyncError.migrationUnfinished("c.vein", commit: unfinished).message
                == "c.vein was migrated since its last sync (commit \(unfinished)), and the migration is not yet published to the other replicas")
    }

    @Test func aChangeIsCarriedToTheFieldsTheStageMakesOfIt() throws {
        let plan = try #require(try { () throws -> StagePlan? in
            if case .success(let made) = StagePlanner.plan(try Self.plan().stages[0]) { return made }
            return nil
        }())
        func forward(_ table: String, _ touch: SyncCarry.Touch, key: [DatabaseValue] = [.text("1")]) -> String {
            guard let (table, key, touch) = SyncCarry.forward(table: table, key: key, touch: touch, through: plan) else { return "dropped" }
            switch touch {
            case .whole: return "\(table) \(key.compactMap(\.string)) whole"
            case .columns(let columns): return "\(table) \(columns.sorted())"
            }
        }
        #expect(forward("Post", .columns(["title"])) == "Post [\"headline\", \"summary\"]")
        #expect(forward("Post", .columns(["views", "folder"])) == "Post [\"views\"]")
        #expect(forward("Post", .columns(["folder"])) == "dropped")
        #expect(forward("Folder", .whole) == "dropped")
        #expect(forward("Tag", .columns(["name"])) == "Label [\"name\"]")
        #expect(forward("_vein_link_Post_tags", .whole, key: [.text("post"), .text("tag")]) == "_vein_link_Label_posts [\"tag\", \"post\"] whole")
    }
}
