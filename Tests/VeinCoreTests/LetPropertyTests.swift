import Foundation
import Testing
import VeinCore

/// `let` properties are persisted: saved with the instance, read from the row by the instances a fetch
/// makes, and an upsert's values are what later reads show.
@Suite struct LetPropertyTests {
    let container: ModelContainer
    let code = UUID()

    init() throws {
        container = try ModelContainer(for: MemberSchema.self, at: nil, appID: "com.example.members")
    }

    @Test func aLetIsSavedAndFetched() throws {
        container.mainContext.insert(Member(code: code, firstName: "Ada"))
        try container.mainContext.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Member>()).first)
        #expect(fetched.code == code)
        #expect(fetched.firstName == "Ada")
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Member>(predicate: #Predicate { $0.firstName == "Ada" })) == 1)
    }

    /// `value(of:)` reads a `let` of an instance not inserted yet, as its property does.
    @Test func valueOfReadsALetBeforeTheInsert() throws {
        let member = Member(code: code, firstName: "Ada")
        #expect(try member.value(of: \.firstName) == "Ada")
        #expect(try member.value(of: \.code) == code)
        container.mainContext.insert(member)
        #expect(try member.value(of: \.firstName) == "Ada")
    }

    /// Inserting an instance whose unique `let` a row holds updates that row, its other `let`s included.
    @Test func aLetShowsTheUpsertedRowsValue() throws {
        let context = ModelContext(container)
        context.insert(Member(code: code, firstName: "Ada"))
        try context.save()
        let newer = Member(code: code, firstName: "Augusta")
        let writer = ModelContext(container)
        writer.insert(newer)
        try writer.save()
        #expect(newer.firstName == "Augusta")
        let reader = ModelContext(container)
        let rows = try reader.fetch(FetchDescriptor<Member>())
        #expect(rows.map(\.firstName) == ["Augusta"])
        #expect(try Member.upsert(Member(code: code, firstName: "Lovelace"), in: reader).firstName == "Augusta",
                "the held instance keeps the value it was fetched with")
        try reader.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Member>()).map(\.firstName) == ["Lovelace"])
    }
}
