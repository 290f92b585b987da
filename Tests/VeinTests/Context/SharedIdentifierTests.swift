import Foundation
import Testing
@testable import Vein

/// Ids are ULIDs a context makes, unique across models; but an import can put one id in two models' tables.
/// The identity map is keyed by id alone, so the object a fetch hands out must still be of the model it
/// fetched (an object of the other model made a typed surface read the wrong table's fields).
@Suite struct SharedIdentifierTests {
    @Test func aFetchNeverHandsOutTheOtherModelsObjectForASharedId() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let writer = ObjectContext(store: f.store)
        let tag = try writer.insert("Tag", ["name": .string("swift")])
        try writer.save()
        try f.store.database.execute("INSERT INTO \"Person\" (\"_id\", \"name\") VALUES ('\(tag.id)', 'Ada')")

        let context = try f.context()
        // Both orders of first touch: the held path (Tag held first) and the unheld one.
        for (first, second) in [("Tag", "Person"), ("Person", "Tag")] {
            let reader = first == "Tag" ? context : try f.context()
            let a = try reader.fetch(ObjectFetch(model: first))
            let b = try reader.fetch(ObjectFetch(model: second))
            let bAgain = try reader.fetch(ObjectFetch(model: second))
            #expect(a.map(\.modelName) == [first])
            #expect(b.map(\.modelName) == [second], "the \(second) fetch after a \(first) fetch")
            #expect(bAgain.map(\.modelName) == [second])
            #expect(try a.first?["name"] == .string(first == "Tag" ? "swift" : "Ada"))
            #expect(try b.first?["name"] == .string(second == "Tag" ? "swift" : "Ada"))
            #expect(try reader.object(second, id: tag.id)?.modelName == second, "a lookup by id after the \(first) fetch")
        }
    }
}
