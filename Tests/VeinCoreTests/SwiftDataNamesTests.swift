import Foundation
import Testing
import VeinCore

/// SwiftData's names for a context's work, as its documentation writes them, each with its effect:
/// `ModelContext(container)`, `container.mainContext`, `transaction(block:)`, `delete(model:where:)`,
/// `enumerate(_:batchSize:allowEscapingMutations:block:)`, `processPendingChanges()` and the stages'
/// `fromVersion:toVersion:`.
/// Before, each was a compile-time error.
@Suite struct SwiftDataNamesTests {
    /// An in-memory container holding posts "p0"…"p(n-1)" with views 0…n-1.
    func container(posts count: Int) throws -> ModelContainer {
        let container = try ModelContainer(V0_0_1.self, migration: FirstBlogMigration.self, at: nil, appID: "com.example.blog")
        for n in 0..<count {
            let post = Post(title: "p\(n)", content: "c")
            post.views = n
            container.mainContext.insert(post)
        }
        try container.mainContext.save()
        return container
    }

    @Test func aContextOfTheContainerAndItsMainContext() throws {
        let container = try container(posts: 3)
        #expect(container.mainContext === container.context)
        let context = ModelContext(container)
        #expect(context !== container.mainContext)
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 3)
        // Its own unit of work: unsaved changes stay its own.
        context.insert(Post(title: "unsaved", content: "c"))
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Post>()) == 3)
    }

    /// The container knows the contexts made this way: closing it closes them (before, such a context kept
    /// its own connection open after `close()`, and the store's `-wal` with it).
    @Test func closingTheContainerClosesItsContexts() throws {
        let container = try container(posts: 1)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 1)
        try container.close()
        #expect(throws: StoreError.closed(container.store.path)) { try context.fetchCount(FetchDescriptor<Post>()) }
    }

    @Test func aTransactionSavesWhatItsBlockDid() throws {
        let container = try container(posts: 2)
        let context = ModelContext(container)
        try context.transaction {
            for post in try context.fetch(FetchDescriptor<Post>()) { post.views += 10 }
            context.insert(Post(title: "added", content: "c"))
        }
        #expect(!context.hasChanges)
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.title)])).map(\.views) == [0, 10, 11])

        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try context.transaction {
                context.insert(Post(title: "never", content: "c"))
                throw Stop()
            }
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Post>()) == 3, "nothing written")
        #expect(context.hasChanges, "the block's insert is still pending, for rollback() to discard")
    }

    /// Every change is applied to the objects when it is made: SwiftData's call has nothing left to do.
    @Test func processPendingChangesLeavesTheContextAsItWas() throws {
        let container = try container(posts: 1)
        let context = container.mainContext
        context.processPendingChanges()
        #expect(!context.hasChanges)
        let post = Post(title: "pending", content: "c")
        context.insert(post)
        post.views = 5
        context.processPendingChanges()
        #expect(context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.views == 5 })).map(\.title) == ["pending"])
    }

    @Test func deleteEveryModelAPredicateSelects() throws {
        let container = try container(posts: 10)
        let context = container.mainContext
        try context.delete(model: Post.self, where: #Predicate { $0.views >= 7 })
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 7)
        try context.delete(model: Post.self)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Post>()) == 0)
    }

    @Test func enumerateVisitsEachInOrderInBatches() throws {
        let container = try container(posts: 25)
        let context = ModelContext(container)
        var seen: [Int] = []
        try context.enumerate(FetchDescriptor<Post>(predicate: #Predicate { $0.views % 2 == 0 }, sortBy: [SortDescriptor(\.views, order: .reverse)]),
                              batchSize: 4) { seen.append($0.views) }
        #expect(seen == Array(stride(from: 24, through: 0, by: -2)))

        // A block that changes objects and leaves the changes unsaved stops, unless allowed.
        let stopped = try #require(throws: EnumerationError.self) {
            try context.enumerate(FetchDescriptor<Post>()) { $0.views += 1 }
        }
        #expect(stopped.description == "enumerate: the block left changes to Post unsaved; save them in the block, or pass allowEscapingMutations: true")
        context.rollback()
        var changed = 0
        try context.enumerate(FetchDescriptor<Post>(), batchSize: 10, allowEscapingMutations: true) { $0.views += 1; changed += 1 }
        #expect(changed == 25 && context.hasChanges)
        #expect(throws: EnumerationError.batchSizeNotPositive(0)) { try context.enumerate(FetchDescriptor<Post>(), batchSize: 0) { _ in } }
    }

    @Test func stagesTakeSwiftDataLabels() throws {
        let stage = MigrationStage.custom(fromVersion: V0_0_1.self, toVersion: BlogV0_0_2.self, willMigrate: nil, didMigrate: { _ in })
        #expect(ObjectIdentifier(stage.from) == ObjectIdentifier(V0_0_1.self) && ObjectIdentifier(stage.to) == ObjectIdentifier(BlogV0_0_2.self))
        #expect(stage.didMigrate != nil && stage.willMigrate == nil && stage.steps.isEmpty)
        let light = MigrationStage.lightweight(fromVersion: V0_0_1.self, toVersion: BlogV0_0_2.self)
        #expect(ObjectIdentifier(light.from) == ObjectIdentifier(V0_0_1.self) && ObjectIdentifier(light.to) == ObjectIdentifier(BlogV0_0_2.self))
        #expect(light.didMigrate == nil)
    }
}
