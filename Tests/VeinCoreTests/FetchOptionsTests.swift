import Foundation
import Testing
@testable import Vein
@testable import VeinCore

/// `FetchDescriptor.propertiesToFetch` and `relationshipKeyPathsForPrefetching`, honoured: the statements a
/// context runs are counted (SQLite's trace), and the values read are the same with and without them.
@Suite struct FetchOptionsTests {
    static func blog(posts: Int) throws -> ModelContainer {
        let container = try ModelContainer(for: V0_0_1.self, at: nil, appID: "com.example.blog")
        for n in 0..<posts {
            let post = Post(title: "title \(n)", content: "content \(n)")
            post.attachments = [Attachment(name: "a\(n)", fileType: .png, data: Data(repeating: UInt8(n), count: 3))]
            container.context.insert(post)
        }
        try container.context.save()
        return container
    }

    @Test func propertiesToFetchReadsOnlyThoseColumnsAndTheRestOnFirstAccess() throws {
        let container = try Self.blog(posts: 3)
        let reader = container.newContext()
        let log = try StatementLog(reader)
        var descriptor = FetchDescriptor<Post>(sortBy: [SortDescriptor(\.title)])
        descriptor.propertiesToFetch = [\.title]
        let posts = try reader.fetch(descriptor)
        let fetch = log.take()
        #expect(fetch.count == 1)
        #expect(fetch.first?.hasPrefix("SELECT \"Post\".\"_id\", \"Post\".\"title\" FROM \"Post\"") == true, "\(fetch)")

        #expect(posts.map(\.title) == ["title 0", "title 1", "title 2"])
        #expect(log.take().isEmpty, "the fetched property is read")
        #expect(posts.map(\.content) == ["content 0", "content 1", "content 2"])
        #expect(log.take().count == 3, "each property left out is read on first access, as a lazy field is")
        #expect(posts.map(\.views) == [0, 0, 0])
        #expect(log.take().count == 3)
        _ = posts.map(\.content)
        #expect(log.take().isEmpty, "once")

        // Without it, every field but the lazy ones comes with the row.
        let other = container.newContext()
        let otherLog = try StatementLog(other)
        let all = try other.fetch(FetchDescriptor<Post>(sortBy: [SortDescriptor(\.title)]))
        #expect(otherLog.take().first?.contains("\"Post\".\"content\"") == true)
        #expect(all.map(\.content) == ["content 0", "content 1", "content 2"])
        #expect(otherLog.take().isEmpty)
    }

    /// A lazy field named in `propertiesToFetch` comes with the row.
    @Test func aLazyFieldNamedIsReadWithTheRow() throws {
        let container = try Self.blog(posts: 2)
        let reader = container.newContext()
        let log = try StatementLog(reader)
        var descriptor = FetchDescriptor<Attachment>(sortBy: [SortDescriptor(\.name)])
        descriptor.propertiesToFetch = [\.name, \.data]
        let attachments = try reader.fetch(descriptor)
        #expect(log.take().count == 1)
        #expect(attachments.map(\.data) == [Data([0, 0, 0]), Data([1, 1, 1])])
        #expect(log.take().isEmpty)

        let plain = container.newContext()
        let plainLog = try StatementLog(plain)
        let lazy = try plain.fetch(FetchDescriptor<Attachment>(sortBy: [SortDescriptor(\.name)]))
        _ = plainLog.take()
        #expect(lazy.map(\.data) == [Data([0, 0, 0]), Data([1, 1, 1])])
        #expect(plainLog.take().count == 2, "a lazy field not named is read on access")
    }

    /// Memory filters (a predicate with no SQL: a computed property) or sorts: the rows are read whole, not
    /// one field per row.
    @Test func aFetchDecidedInMemoryReadsWholeRows() throws {
        let container = try Self.blog(posts: 3)
        let reader = container.newContext()
        let log = try StatementLog(reader)
        var descriptor = FetchDescriptor<Post>(predicate: #Predicate { $0.shoutedTitle != "" }, sortBy: [SortDescriptor(\.title)])
        descriptor.propertiesToFetch = [\.title]
        let posts = try reader.fetch(descriptor)
        _ = log.take()
        #expect(posts.map(\.content) == ["content 0", "content 1", "content 2"])
        #expect(log.take().isEmpty)
    }

    @Test func prefetchingAToManyReadsEveryOwnersMembersInOneStatement() throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        for n in 0..<20 {
            let person = PetStore.Person(name: "p\(n)")
            person.pets = (0..<3).map { PetStore.Pet(name: "pet \(n).\($0)") }
            container.context.insert(person)
        }
        container.context.insert(PetStore.Person(name: "no pets"))
        try container.context.save()

        let plain = container.newContext()
        let plainLog = try StatementLog(plain)
        let expected = try plain.fetch(FetchDescriptor<PetStore.Person>(sortBy: [SortDescriptor(\.name)])).map { ($0.name, $0.pets?.map(\.name) ?? []) }
        #expect(plainLog.take().count > 21, "without prefetching, a statement per person")

        let reader = container.newContext()
        let log = try StatementLog(reader)
        var descriptor = FetchDescriptor<PetStore.Person>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.pets]
        let people = try reader.fetch(descriptor)
        #expect(log.take().count == 2, "the people, then every person's pets")
        let read = people.map { ($0.name, $0.pets?.map(\.name) ?? []) }
        #expect(log.take().isEmpty, "reading the pets reads no more of the store")
        #expect(read.map(\.0) == expected.map(\.0))
        #expect(read.map(\.1) == expected.map(\.1))
        #expect(read.last?.1 == ["pet 9.0", "pet 9.1", "pet 9.2"], "each person's pets in the relationship's order")
        #expect(people.first { $0.name == "no pets" }?.pets?.isEmpty == true)
    }

    @Test func prefetchingAToOneAndALinkTableToMany() throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        for n in 0..<10 {
            let shelter = PetStore.Shelter(name: "s\(n)")
            shelter.manager = PetStore.Person(name: "manager \(n)")
            shelter.residents = [PetStore.Pet(name: "r\(n).a"), PetStore.Pet(name: "r\(n).b")]
            container.context.insert(shelter)
        }
        try container.context.save()

        let reader = container.newContext()
        let log = try StatementLog(reader)
        var descriptor = FetchDescriptor<PetStore.Shelter>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.manager, \.residents]
        descriptor.propertiesToFetch = [\.name]
        let shelters = try reader.fetch(descriptor)
        #expect(log.take().count == 3, "the shelters, their managers, their residents")
        let managers = shelters.map { $0.manager?.name }
        let residents = shelters.map { $0.residents?.map(\.name) ?? [] }
        #expect(log.take().isEmpty)
        #expect(managers == (0..<10).map { "manager \($0)" })
        #expect(residents == (0..<10).map { ["r\($0).a", "r\($0).b"] })
    }

    /// Unsaved changes count: a member added and not saved is in the prefetched list.
    @Test func prefetchingKeepsTheContextsUnsavedLinks() throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        let ada = PetStore.Person(name: "Ada")
        ada.pets = [PetStore.Pet(name: "Rex")]
        container.context.insert(ada)
        try container.context.save()
        ada.pets = (ada.pets ?? []) + [PetStore.Pet(name: "Tom")]

        var descriptor = FetchDescriptor<PetStore.Person>()
        descriptor.relationshipKeyPathsForPrefetching = [\.pets]
        #expect(try container.context.fetch(descriptor).first?.pets?.map(\.name) == ["Rex", "Tom"])
    }
}
