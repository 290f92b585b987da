import Foundation
import Testing
import VeinCore

/// `FetchDescriptor<T>` as docs/app-guide.md writes it: `#Predicate`, `SortDescriptor` (optional fields, to-one
/// paths), windows, pending changes, identifiers; predicates with no SQL translation fall back to
/// Foundation instead of trapping. TypedPredicateDifferentialTests checks the answers at random.
@Suite struct TypedFetchTests {
    struct Blog {
        let folder: String
        let container: ModelContainer
        var context: ModelContext { container.context }

        init() throws {
            folder = try ModelContainerTests.temporaryFolder()
            container = try ModelContainer(for: V0_0_1.self, at: "\(folder)/blog.vein", appID: "com.example.blog",
                                           keyProvider: ModelContainerTests.keys(folder))
            let day = 86_400.0
            for (title, views, published) in [("Vein 1.0", 5, 3 * day), ("Hello", 9, nil), ("Vein on Linux", 2, 1 * day),
                                              ("Notes", 9, 2 * day), ("About Vein", 0, nil)] {
                let post = Post(title: title, content: "")
                post.views = views
                post.publishedAt = published.map(Date.init(timeIntervalSince1970:))
                post.attachments = [Attachment(name: "\(title).png", fileType: .png, data: Data(count: views))]
                container.context.insert(post)
            }
            try container.context.save()
        }

        func titles(_ descriptor: FetchDescriptor<Post>) throws -> [String] { try context.fetch(descriptor).map(\.title) }
    }

    @Test func theAnnouncementsFetch() throws {
        let blog = try Blog()
        defer { try? FileManager.default.removeItem(atPath: blog.folder) }
        let hits = try blog.context.fetch(FetchDescriptor(predicate: #Predicate<Post> { $0.title.contains("Vein") },
                                                          sortBy: [SortDescriptor(\.title)], fetchLimit: 20))
        #expect(hits.map(\.title) == ["About Vein", "Vein 1.0", "Vein on Linux"])
    }

    @Test func sortsOnOptionalFieldsReversedWithTiesInCreationOrderAndAWindow() throws {
        let blog = try Blog()
        defer { try? FileManager.default.removeItem(atPath: blog.folder) }
        // nil sorts first in Foundation's order, so last in reverse.
        #expect(try blog.titles(FetchDescriptor(sortBy: [SortDescriptor(\.publishedAt, order: .reverse)]))
                == ["Vein 1.0", "Notes", "Vein on Linux", "Hello", "About Vein"])
        #expect(try blog.titles(FetchDescriptor(sortBy: [SortDescriptor(\.views, order: .reverse)], fetchLimit: 2, fetchOffset: 1))
                == ["Notes", "Vein 1.0"])
        let descriptor = FetchDescriptor<Post>(predicate: #Predicate { $0.views > 1 }, sortBy: [SortDescriptor(\.title)], fetchOffset: 1)
        #expect(try blog.context.fetchCount(descriptor) == 3)
        #expect(try blog.context.fetchIdentifiers(descriptor) == blog.context.fetch(descriptor).compactMap(\.id))
    }

    @Test func sortsThroughAToOnePathInMemory() throws {
        let blog = try Blog()
        defer { try? FileManager.default.removeItem(atPath: blog.folder) }
        let names = try blog.context.fetch(FetchDescriptor<Attachment>(sortBy: [SortDescriptor(\.post?.title, order: .reverse)])).map(\.name)
        #expect(names == ["Vein on Linux.png", "Vein 1.0.png", "Notes.png", "Hello.png", "About Vein.png"])
    }

    @Test func pendingChangesCountUnlessTheDescriptorSaysNot() throws {
        let blog = try Blog()
        defer { try? FileManager.default.removeItem(atPath: blog.folder) }
        blog.context.insert(Post(title: "Vein draft", content: ""))
        let predicate = #Predicate<Post> { $0.title.starts(with: "Vein") }
        #expect(try blog.titles(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.title)]))
                == ["Vein 1.0", "Vein draft", "Vein on Linux"])
        #expect(try blog.titles(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.title)], includePendingChanges: false))
                == ["Vein 1.0", "Vein on Linux"])
    }

    @Test func translatesToSQLWhereTheEngineCanAndFallsBackWhereItCannot() throws {
        let blog = try Blog()
        defer { try? FileManager.default.removeItem(atPath: blog.folder) }
        let context = blog.context
        #expect(context.translates(#Predicate<Post> { $0.title.contains("Vein") && ($0.publishedAt == nil || $0.views >= 5) }))
        #expect(context.translates(#Predicate<Post> { $0.attachments.contains { $0.sizeMiB > 0 } }))
        #expect(context.translates(#Predicate<Attachment> { $0.post?.title.contains("Vein") == true }))
        // A computed property has no column: Foundation evaluates it, and the answer is still right.
        let shouted = #Predicate<Post> { $0.shoutedTitle == "NOTES" }
        #expect(!context.translates(shouted))
        #expect(try blog.titles(FetchDescriptor(predicate: shouted)) == ["Notes"])
        let windowed = FetchDescriptor(predicate: #Predicate<Post> { $0.shoutedTitle != "NOTES" }, sortBy: [SortDescriptor(\.views)],
                                       fetchLimit: 2, fetchOffset: 1)
        #expect(try blog.titles(windowed) == ["Vein on Linux", "Vein 1.0"])
        #expect(try context.fetchCount(windowed) == 2)
    }
}

extension Post {
    var shoutedTitle: String { title.uppercased() }
}
