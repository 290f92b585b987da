import Foundation
import Testing
import Vein
import VeinCore

/// The typed surface's error paths: a container's context used before `migrate()` (or over a store newer
/// than the app) says what to do instead of failing in SQLite, and `value(of:)`/`setValue(_:for:)` report
/// what the non-throwing accessors stop the program for (a closed context, a damaged cell).
@Suite struct TypedErrorPathTests {
    /// A store at the blog's 0.0.1 holding one post, at `folder/blog.vein`.
    static func storeAt0_0_1(_ folder: String) throws -> String {
        let path = "\(folder)/blog.vein"
        let container = try ModelContainer(for: V0_0_1.self, at: path, appID: "com.example.blog",
                                           keyProvider: ModelContainerTests.keys(folder))
        container.context.insert(Post(title: "first", content: "c"))
        try container.context.save()
        return path
    }

    @Test func theContextBeforeMigrateSaysToMigrateAtTheFirstOperation() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAt0_0_1(folder)
        let container = try ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: path, appID: "com.example.blog",
                                           keyProvider: ModelContainerTests.keys(folder))
        let early = container.context
        let expected = "the store is at schema 0.0.1 and the app's schema is 0.0.2: call container.migrate() first, "
            + "then use container.context (a context taken before migrate() stays at 0.0.1)"
        func message(_ body: () throws -> Void) -> String? {
            do { try body() } catch { return "\(error)" }
            return nil
        }
        #expect(message { _ = try early.fetch(FetchDescriptor<BlogV0_0_2.Post>()) } == expected)
        #expect(message { _ = try early.fetchCount(FetchDescriptor<BlogV0_0_2.Post>()) } == expected)
        #expect(message { _ = try early.fetch(BlogV0_0_2.Post.self) } == expected)
        early.insert(BlogV0_0_2.Post(title: "t", body: "b", summary: "s"))  // refused, for save to say
        #expect(early.engine.changes().isEmpty, "the refused insert left nothing pending")
        #expect(early.hasChanges)
        #expect(message { try early.save() } == expected)
        #expect(message { _ = try container.newContext().fetchIdentifiers(FetchDescriptor<BlogV0_0_2.Post>()) } == expected)
        early.rollback()
        #expect(!early.hasChanges, "rollback forgets the refused insert")

        try container.migrate()
        #expect(try container.context.fetch(FetchDescriptor<BlogV0_0_2.Post>()).map(\.summary) == ["first"])
        #expect(message { _ = try early.fetch(FetchDescriptor<BlogV0_0_2.Post>()) } == expected, "taken before migrate()")
    }

    @Test func aStoreNewerThanTheAppSaysSo() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAt0_0_1(folder)
        try ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: path, appID: "com.example.blog",
                           keyProvider: ModelContainerTests.keys(folder)).migrate()
        let error = #expect(throws: ModelContainerError.self) {
            try ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: path, appID: "com.example.blog",
                               keyProvider: ModelContainerTests.keys(folder))
        }
        #expect(error?.description == "\(path) is at schema 0.0.2, newer than the app's 0.0.1: a newer version of the app "
                + "migrated it; open it with that version (Vein does not migrate a store back)")
    }

    /// Container A opens the store at 0.0.1 (its context refused), container B (another process, say) migrates
    /// it: A's migrate() has no stage left to run and still gives A a context at the app's schema.
    @Test func migrateAfterAnotherContainerMigratedReplacesTheRefusedContext() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.storeAt0_0_1(folder)
        func open() throws -> ModelContainer {
            try ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: path, appID: "com.example.blog",
                               keyProvider: ModelContainerTests.keys(folder))
        }
        let first = try open(), second = try open()
        #expect(try second.migrate().stages.count == 1)
        #expect(try first.migrate().stages.isEmpty)
        #expect(!first.needsMigration)
        #expect(try first.context.fetch(FetchDescriptor<BlogV0_0_2.Post>()).map(\.summary) == ["first"])
        #expect(try first.newContext().fetchCount(FetchDescriptor<BlogV0_0_2.Post>()) == 1)
    }

    /// A 0.0.1 of another history than the blog's.
    enum OtherV0_0_1: VersionedSchema {
        static let version = ModelVersion(0, 0, 1)
        static let models: [any PersistentModel.Type] = [Memo.self]
        @Model final class Memo {
            var text: String
            init(text: String) { self.text = text }
        }
    }

    /// What migrate() would refuse is refused when the container opens, with its reason, not with contexts
    /// that say "call container.migrate() first" while migrate() cannot help.
    @Test func aStoreMigrateCannotHelpIsRefusedWhenTheContainerOpens() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keys = ModelContainerTests.keys(folder)
        let blog = try Self.storeAt0_0_1(folder)
        let otherApp = #expect(throws: ModelContainerError.self) {
            try ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: blog, appID: "com.example.other", keyProvider: keys)
        }
        #expect(otherApp?.description == "\(blog) belongs to app \"com.example.blog\", not to \"com.example.other\" (the container's appID)")
        // The same version, another schema (a schema changed without a new version).
        let notes = "\(folder)/notes.vein"
        _ = try ModelContainer(for: V0_0_2.self, at: notes, appID: "com.example.blog", keyProvider: keys)
        let sameVersion = #expect(throws: ModelContainerError.self) {
            try ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: notes, appID: "com.example.blog", keyProvider: keys)
        }
        #expect(sameVersion?.description == "\(notes) holds a different schema 0.0.2 than the app declares for the same version")
        // An older version of the plan, another schema.
        let memos = "\(folder)/memos.vein"
        _ = try ModelContainer(for: OtherV0_0_1.self, at: memos, appID: "com.example.blog", keyProvider: keys)
        let olderVersion = #expect(throws: ModelContainerError.self) {
            try ModelContainer(BlogV0_0_2.self, migration: BlogMigration.self, at: memos, appID: "com.example.blog", keyProvider: keys)
        }
        #expect(olderVersion?.description == "\(memos) holds a different schema 0.0.1 than the migration plan declares for that version")
    }

    struct Point: CodablePersistable, Equatable {
        var x: Double
    }

    enum Points: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Plotted.self]
        @Model final class Plotted {
            var point: Point
            var maybe: Point?
            var points: [Point]
            init(point: Point) {
                self.point = point
                self.maybe = nil
                self.points = []
            }
        }
    }

    /// A Codable value JSON cannot write (a non-finite Double) is an error through setValue, not a trap; the
    /// field keeps its value.
    @Test func aValueWithNoJSONFormIsAnErrorThroughSetValue() throws {
        let container = try ModelContainer(for: Points.self, at: nil, appID: "com.example.points")
        let plotted = Points.Plotted(point: Point(x: 1))
        container.context.insert(plotted)
        let point = #expect(throws: ModelFieldError.self) { try plotted.setValue(Point(x: .nan), for: \.point) }
        #expect(point?.description == "Plotted.point cannot store this Point: nan has no JSON form")
        let maybe = #expect(throws: ModelFieldError.self) { try plotted.setValue(Point(x: .infinity), for: \.maybe) }
        #expect(maybe?.description == "Plotted.maybe cannot store this Optional<Point>: inf has no JSON form")
        let points = #expect(throws: ModelFieldError.self) { try plotted.setValue([Point(x: -.infinity)], for: \.points) }
        #expect(points?.description == "Plotted.points cannot store this Array<Point>: -inf has no JSON form")
        #expect(try plotted.value(of: \.point) == Point(x: 1))
        try plotted.setValue(Point(x: 2), for: \.maybe)
        #expect(try plotted.value(of: \.maybe) == Point(x: 2))
    }

    @Test func aDamagedCellIsAnErrorThroughValueOf() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        container.context.insert(Attachment(name: "a.png", fileType: .png, data: Data([1, 2])))
        try container.context.save()
        try container.store.database.execute("PRAGMA ignore_check_constraints = ON; UPDATE Attachment SET data = 'abc'; "
                                             + "PRAGMA ignore_check_constraints = OFF")
        // Another context: the lazy field is read from the store at first access.
        let context = container.newContext()
        let attachment = try #require(try context.fetch(Attachment.self).first)
        let id = attachment.persistentModelID.key
        #expect(try attachment.value(of: \.name) == "a.png")
        let error = #expect(throws: DamagedValueError.self) { try attachment.value(of: \.data) }
        #expect(error?.description == "Attachment \(id): data holds text \"abc\", which is not a value of type data")
    }

    @Test func aDeletedInstanceIsAnErrorThroughSetValue() throws {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        container.context.insert(Post(title: "first", content: "c"))
        try container.context.save()
        var context: VeinCore.ModelContext? = container.newContext()
        let post = try #require(try context?.fetch(Post.self).first)
        let id = post.persistentModelID.key
        try post.setValue("renamed", for: \.title)
        #expect(try post.value(of: \.title) == "renamed")
        #expect(post.title == "renamed")
        let attachment = Attachment(name: "a.png", fileType: .png, data: Data())
        try post.setValue([attachment], for: \.attachments)
        #expect(try post.value(of: \.attachments).map(\.name) == ["a.png"])
        #expect(try attachment.value(of: \.post) === post, "the inverse, kept in step")
        try attachment.setValue(nil, for: \.post)
        #expect(try post.value(of: \.attachments).isEmpty)
        context?.delete(post)
        context = nil
        let expected = "Post \(id) is deleted"
        #expect(try post.value(of: \.title) == "renamed", "its last value")
        #expect((#expect(throws: ContextError.self) { try post.setValue("again", for: \.title) })?.description == expected)
        #expect(try post.value(of: \.attachments).isEmpty)
        #expect((#expect(throws: ContextError.self) { try post.setValue([], for: \.attachments) })?.description == expected)
    }

    @Test func aFieldNeverGivenAValueIsAnErrorThroughValueOf() throws {
        let post = Post(title: "t", content: "c")
        try post.setValue(3, for: \.views)
        #expect(try post.value(of: \.views) == 3)
        let error = #expect(throws: ModelFieldError.self) { try post.value(of: \.publishedAt) }
        #expect(error?.description == "Post.publishedAt was read before it was given a value")
    }

    @Test func aPropertyThatIsNotPersistedIsAnErrorThroughValueOf() throws {
        let note = V0_0_2.Note(slug: "s")
        let error = #expect(throws: ModelFieldError.self) { try note.value(of: \.label) }
        #expect(error?.description == "the key path names no persisted field of Note")
    }

    enum Labels: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Labelled.self]
        @Model final class Labelled {
            var labels: [String]
            init(labels: [String]) { self.labels = labels }
        }
    }

    @Test func aStoredValueThatDoesNotFitTheSwiftTypeIsAnErrorThroughValueOf() throws {
        let container = try ModelContainer(for: Labels.self, at: nil, appID: "com.example.labels")
        container.context.insert(Labels.Labelled(labels: ["a"]))
        try container.context.save()
        // Valid JSON for the engine's json field, but not the [String] the class declares.
        try container.store.database.execute("UPDATE Labelled SET labels = '{\"x\":1}'")
        let context = container.newContext()
        let labelled = try #require(try context.fetch(Labels.Labelled.self).first)
        let id = labelled.persistentModelID.key
        let error = #expect(throws: ModelFieldError.self) { try labelled.value(of: \.labels) }
        #expect(error?.description.hasPrefix("Labelled.labels of \(id) holds a value that does not fit Array<String>: ") == true,
                "\(String(describing: error))")
    }
}
