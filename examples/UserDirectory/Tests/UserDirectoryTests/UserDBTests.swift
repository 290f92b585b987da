import Foundation
import Testing
@testable import UserDirectory

/// The article's CRUD, on the in-memory store it suggests for tests.
@Suite struct UserDBTests {
    let database: UserDB
    init() throws { database = try UserDB(useInMemoryStore: true) }

    @Test func createThenRead() throws {
        var random = RandomUsers(seed: 1)
        try database.create((0..<100).map { _ in random.user() })
        try database.create(User(firstName: "Grace", surname: "Hopper", age: 85))
        let users = try database.read(predicate: #Predicate { $0.surname == "Hopper" }, sortDescriptors: SortDescriptor(\.age))
        #expect(users.contains { $0.firstName == "Grace" && $0.age == 85 })
        #expect(users.map(\.age) == users.map(\.age).sorted())
        #expect(try database.read(predicate: nil).count == 101)
    }

    /// The article: "insert functions as an upsert — if the ID exists, it updates". No second row.
    @Test func updateIsAnInsertOfTheSameId() throws {
        let ada = User(firstName: "Ada", surname: "Lovelace", age: 36)
        try database.create(ada)
        try database.update(User(id: ada.id, firstName: "Ada", surname: "Lovelace", age: 37))
        let read = try database.read(predicate: nil)
        #expect(read.count == 1)
        #expect(read.first?.age == 37)
    }

    /// Read returns objects whose context was made in `read` and is gone from the caller's view: they
    /// still read, and deleting one by its persistentModelID removes that user only.
    @Test func deleteByPersistentModelID() throws {
        try database.create([User(firstName: "Alan", surname: "Turing", age: 41),
                             User(firstName: "Edsger", surname: "Dijkstra", age: 72)])
        let turing = try #require(try database.read(predicate: #Predicate { $0.surname == "Turing" }).first)
        try database.delete(turing)
        #expect(try database.read(predicate: nil).map(\.surname) == ["Dijkstra"])
        #expect(turing.firstName == "Alan")
    }
}
