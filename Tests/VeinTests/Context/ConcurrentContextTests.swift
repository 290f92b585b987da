import Foundation
import Testing
@testable import Vein

/// Several connections writing one store: a save never overwrites a row another connection changed since
/// it was read (issue 10, items 2 and 3), a statement reads and writes under one lock, a store migrated
/// under a context is reported as such (item 14), and a backup lets writers go on (item 19).
/// (The name ends in ContextTests: scripts/test runs it under the thread sanitizer.)
@Suite struct ConcurrentContextTests {
    func views(_ object: ModelObject) throws -> Int64 {
        guard case .int(let n) = try object["views"] else { throw ContextError.missingValue(model: "Post", field: "views") }
        return n
    }

    /// A saved post titled "counter"; its id.
    func counter(_ f: ContextFixture) throws -> String {
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("counter"), "content": .string("c")])
        try context.save()
        return post.id
    }

    func storedViews(_ f: ContextFixture, _ id: String) throws -> Int64 {
        let context = try f.context()  // held: an object outliving its context cannot be read
        return try views(try #require(try context.object("Post", id: id)))
    }

    @Test func firstSaveWinsAndTheSecondIsAConflictThatWritesNothing() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let id = try counter(f)
        let a = try f.context(), b = try f.context()
        let seenByA = try #require(try a.object("Post", id: id)), seenByB = try #require(try b.object("Post", id: id))
        try seenByA.set("views", .int(try views(seenByA) + 1))
        try seenByB.set("views", .int(try views(seenByB) + 1))
        try b.insert("Tag", ["name": .string("written with b's update")])
        try a.save()
        let conflict = try #require(throws: ContextError.self) { try b.save() }
        #expect(conflict == .conflict(model: "Post", id: id))
        // Both contexts are in this process: before, the message blamed "another process".
        #expect(conflict.description == "another context or process changed Post \(id) after it was read; nothing was saved")
        #expect(b.hasChanges, "the changes stay pending")
        #expect(try storedViews(f, id) == 1)
        #expect(try f.context().fetchCount(ObjectFetch(model: "Tag")) == 0, "nothing of the refused save is written")
        // Redone from a fresh read, it saves.
        b.rollback()
        let fresh = try #require(try b.object("Post", id: id))
        try fresh.set("views", .int(try views(fresh) + 1))
        try b.save()
        #expect(try storedViews(f, id) == 2)
    }

    @Test func deletingAChangedRowOrChangingADeletedRowIsAConflict() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let id = try counter(f)
        let a = try f.context(), b = try f.context()
        let seenByA = try #require(try a.object("Post", id: id))
        let seenByB = try #require(try b.object("Post", id: id))
        try seenByB.set("title", .string("renamed"))
        try b.save()
        try a.delete(seenByA)
        #expect(throws: ContextError.conflict(model: "Post", id: id)) { try a.save() }
        #expect(try f.context().object("Post", id: id) != nil, "not deleted")

        a.rollback()
        try a.delete(try #require(try a.object("Post", id: id)))
        try seenByB.set("views", .int(5))
        try a.save()
        #expect(throws: ContextError.conflict(model: "Post", id: id)) { try b.save() }
        #expect(try f.context().fetchCount(ObjectFetch(model: "Post")) == 0)
    }

    /// The check of a deleted row compares stored text by its bytes first: text changed to as many
    /// bytes is a conflict, as is a to-one changed to another id; text another program rewrote in
    /// another normal form is the same value (as `Value`'s `==` says) and no conflict.
    @Test func aDeletedRowsTextIsComparedByValue() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let setup = try f.context()
        let renormalized = try setup.insert("Post", ["title": .string("caf\u{E9}"), "content": .string("c")])
        let retyped = try setup.insert("Post", ["title": .string("caf\u{E9}"), "content": .string("c")])
        let attachment = try setup.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(1), "post": .string(retyped.id)])
        try setup.save()
        for (id, title, conflicts) in [(renormalized.id, "cafe\u{301}", false), (retyped.id, "cafx", true)] {
            let a = try f.context()
            let seen = try #require(try a.object("Post", id: id))
            #expect(try seen["title"] == .string("caf\u{E9}"))
            try f.context().database.execute(#"UPDATE "Post" SET "title" = ? WHERE "_id" = ?"#, [.text(title), .text(id)])
            try a.delete(seen)
            if conflicts {
                #expect(throws: ContextError.conflict(model: "Post", id: id)) { try a.save() }
            } else {
                try a.save()
                #expect(try f.context().object("Post", id: id) == nil)
            }
        }
        let a = try f.context()
        let seen = try #require(try a.object("Attachment", id: attachment.id))
        #expect(try seen["post"] == .string(retyped.id))
        try f.context().database.execute(#"UPDATE "Attachment" SET "post" = NULL WHERE "_id" = ?"#, [.text(attachment.id)])
        try a.delete(seen)
        #expect(throws: ContextError.conflict(model: "Attachment", id: attachment.id)) { try a.save() }
    }

    /// Item 3: two contexts adding to the same post lose neither link. Store format 2 keeps no list on the
    /// owner to overwrite: each link is its own row change (the member's to-one and position), so both land.
    @Test func relationshipEditedByAnotherContextIsAConflict() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let id = try counter(f)
        let a = try f.context(), b = try f.context()
        try a.insert("Attachment", ["name": .string("a.png"), "sizeMiB": .double(1), "post": .string(id)])
        try b.insert("Attachment", ["name": .string("b.png"), "sizeMiB": .double(1), "post": .string(id)])
        try a.save()
        try b.save()
        let check = try f.context()
        #expect(try check.object("Post", id: id)?.related("attachments").map { try $0["name"] } == [.string("a.png"), .string("b.png")])
        #expect(try f.context().fetchCount(ObjectFetch(model: "Attachment")) == 2)
        #expect(try f.verify() == [])
        // The same two inserts as statements, each read and saved under one write lock: both land.
        a.rollback()
        b.rollback()
        for (context, name) in [(a, "c.png"), (b, "d.png")] {
            _ = try QueryRunner(context: context).run(#"insert Attachment(name: "\#(name)", sizeMiB: 1, post: #id("\#(id)"))"#, save: true)
        }
        let recheck = try f.context()
        #expect(try recheck.object("Post", id: id)?.related("attachments").count == 4)
        #expect(try f.verify() == [])
    }

    /// What a context never read, or wrote itself, is no conflict.
    @Test func noConflictWithoutAnotherWriterOfWhatWasRead() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let id = try counter(f)
        let a = try f.context(), b = try f.context()
        let seenByA = try #require(try a.object("Post", id: id))
        // `body` is lazy and A never reads it: B's change to it does not conflict, and A keeps it.
        try #require(try b.object("Post", id: id)).set("body", .string("from b"))
        try b.save()
        try seenByA.set("views", .int(7))
        try a.save()
        try seenByA.set("views", .int(8))  // again after its own save
        try a.save()
        let check = try f.context()
        let stored = try #require(try check.object("Post", id: id))
        #expect(try stored["body"] == .string("from b") && views(stored) == 8)
        // Deletes whose rules change other rows (cascade, nullify) check before they write.
        let attachment = try a.insert("Attachment", ["name": .string("x.png"), "sizeMiB": .double(1), "post": .string(id)])
        let tag = try a.insert("Tag", ["name": .string("t"), "posts": .array([.string(id)])])
        try a.save()
        try a.delete(tag)
        try a.delete(seenByA)
        try a.save()
        #expect(attachment.isDeleted)
        #expect(try f.context().fetchCount(ObjectFetch(model: "Attachment")) == 0)
        #expect(try f.verify() == [])
    }

    /// A statement runs on the stored rows even in a context that read them before: an update computes
    /// from the row as it is under the write lock, and an insert links to the owner as it is.
    @Test func statementsInALongLivedContextReadTheStoredRows() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let id = try counter(f)
        let a = try f.context(), b = try f.context()
        let heldByA = try #require(try a.object("Post", id: id))
        let increment = #"update Post where title == "counter" set views = views + 1"#
        for context in [a, b, a, b, a] { _ = try QueryRunner(context: context).run(increment, save: true) }
        #expect(try storedViews(f, id) == 5)
        #expect(try views(heldByA) == 5, "an object without changes shows the row as the last statement read it")
        for (context, name) in [(a, "a.png"), (b, "b.png"), (a, "c.png")] {
            _ = try QueryRunner(context: context).run(#"insert Attachment(name: "\#(name)", sizeMiB: 1, post: #id("\#(id)"))"#, save: true)
        }
        #expect(try heldByA.related("attachments").count == 3)
        #expect(try f.verify() == [])
    }

    /// Threads with a context each increment one counter, half by fetch-change-save (retrying a
    /// conflict from a fresh read, and saving only after another thread wrote since the read), half by an
    /// update statement: no increment is lost.
    @Test func incrementsFromSeveralThreadsSumExactly() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let id = try counter(f)
        let workers = 4, times = 30, rounds = 3
        let errors = ErrorBox(), conflicts = ErrorBox()
        for _ in 0..<rounds { let turns = CommitTurns(workers: workers); turns.run { worker in
            do {
                let context = try f.context()
                for _ in 0..<times {
                    if worker % 2 == 0 {
                        while true {
                            let mark = turns.mark()
                            let post = try #require(try context.object("Post", id: id))
                            try post.set("views", .int(try views(post) + 1))
                            turns.waitForACommit(after: mark)  // a slow app between its read and its save
                            do {
                                try context.save()
                                turns.committed()
                                break
                            } catch ContextError.conflict {
                                conflicts.append("\(worker)")
                                context.rollback()
                            }
                        }
                    } else {
                        _ = try QueryRunner(context: context).run(#"update Post where title == "counter" set views = views + 1"#, save: true)
                        turns.committed()
                    }
                }
            } catch {
                errors.append("\(error)")
            }
        } }
        #expect(errors.items == [])
        #expect(try storedViews(f, id) == Int64(rounds * workers * times), "conflicts retried: \(conflicts.items.count)")
        print("context increments: \(rounds) rounds of \(workers) threads × \(times), \(conflicts.items.count) conflicts retried, views \(try storedViews(f, id))")
    }

    @Test func aStoreMigratedSinceItWasOpenedIsASchemaChange() throws {
        let dir = try TempDir()
        defer { dir.cleanUp() }
        func schema(_ version: String, _ models: String) -> String {
            "{ vein: 1, app: \"t\", version: \"\(version)\", models: { \(models) } }"
        }
        let v1 = schema("1.0.0", "Note: { fields: { text: \"string\" } }, Tag: { fields: { name: \"string\" } }")
        let v2 = schema("1.1.0", "Note: { fields: { text: \"string\" } }")
        let path = dir.path("m.vein")
        _ = try StoreCreator.create(at: path, manifest: try ManifestParser.parse(v1, file: "v1"), protection: .plaintext)
        let store = try Store.open(path, keys: KeyOptions(keyring: nil))
        let context = ObjectContext(store: store)
        let plan = try PlanParser.parse("""
            { vein: 1, app: "t", schemas: [\(v1), \(v2)], stages: [{ from: "1.0.0", to: "1.1.0", steps: [{ dropModel: "Tag" }] }] }
            """, file: "plan.json5")
        _ = try Migrator(plan: plan).run(on: try Store.open(path, keys: KeyOptions(keyring: nil)))

        let changed = StoreError.schemaChanged(path, from: "1.0.0", to: "1.1.0")
        try context.insert("Tag", ["name": .string("t")])
        #expect(throws: changed) { try context.save() }
        #expect(throws: changed) { _ = try QueryRunner(context: ObjectContext(store: store)).run("count Note") }
        #expect(throws: changed) { _ = try QueryRunner(context: ObjectContext(store: store)).run(#"insert Note(text: "x")"#, save: true) }
        #expect(try Store.open(path, keys: KeyOptions(keyring: nil)).rowCounts().map(\.rows) == [0])
        // A context made after the migration works.
        _ = try QueryRunner(context: ObjectContext(store: try Store.open(path, keys: KeyOptions(keyring: nil)))).run(#"insert Note(text: "x")"#, save: true)
    }

    /// Item 19: while a backup reads its snapshot, another connection inserts and commits (at once: its
    /// busy timeout is short), and the backup holds only what was committed before.
    @Test func aBackupLetsWritersCommitMeanwhile() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let before = try f.context()
        for i in 0..<3 { try before.insert("Tag", ["name": .string("before \(i)")]) }
        try before.save()
        let writerStore = try Store.open(f.dir.path("s.vein"), keys: KeyOptions(keyring: nil))
        writerStore.database.setBusyTimeout(milliseconds: 200)
        let writer = ObjectContext(store: writerStore)
        _ = try StoreCopier.copy(f.store, to: f.dir.path("copy.vein"), protection: .plaintext) {
            try writer.insert("Tag", ["name": .string("during")])
            try writer.save()
        }
        #expect(try f.context().fetchCount(ObjectFetch(model: "Tag")) == 4)
        let copy = ObjectContext(store: try Store.open(f.dir.path("copy.vein"), keys: KeyOptions(keyring: nil)))
        #expect(try copy.fetch(ObjectFetch(model: "Tag", sortBy: [.init("name")])).map { try $0["name"] }
                == (0..<3).map { .string("before \($0)") })

        // A writer in the middle of its transaction: the backup does not wait for it (it used to wait the
        // 5 s busy timeout and fail), and holds what was committed.
        try writerStore.database.execute("BEGIN IMMEDIATE")
        try writerStore.database.execute("DELETE FROM \"Tag\"")
        let result = try StoreCopier.copy(f.store, to: f.dir.path("copy2.vein"), protection: .plaintext)
        try writerStore.database.execute("ROLLBACK")
        #expect(result.rows == 4)
    }
}
