import Foundation
import Testing
import VeinCore

/// Links given before an insert are made in the order the app gave them. SwiftData-style initializers set
/// a to-one to nil (`self.owner = nil`); before, that nil, made after `person.pets = [pet]` by the insert,
/// emptied the list again: the pets were inserted owning nothing, and the save lost every link.
@Suite struct PendingLinkOrderTests {
    @Test func aListGivenBeforeInsertSurvivesTheInverseSetToNilInAnInit() throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        let ada = PetStore.Person(name: "Ada")
        let rex = PetStore.Pet(name: "Rex", size: .large), tom = PetStore.Pet(name: "Tom")
        ada.pets = [rex, tom]
        container.context.insert(ada)
        try container.context.save()
        #expect(ada.pets?.map(\.name) == ["Rex", "Tom"])
        #expect(rex.owner === ada && tom.owner === ada)
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<PetStore.Person>()).first?.pets?.map(\.name) == ["Rex", "Tom"])
    }

    @Test func theToOneSideGivenBeforeInsertInsertsTheOwnerWithItsList() throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        let bo = PetStore.Person(name: "Bo")
        let tom = PetStore.Pet(name: "Tom")
        tom.owner = bo
        container.context.insert(tom)
        #expect(bo.pets?.map(\.name) == ["Tom"])
    }

    /// The last assignment wins, as it would have in memory: a nil given after the list takes the pet out.
    @Test func aLaterNilWins() throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        let ada = PetStore.Person(name: "Ada")
        let rex = PetStore.Pet(name: "Rex"), tom = PetStore.Pet(name: "Tom")
        ada.pets = [rex, tom]
        rex.owner = nil
        container.context.insert(ada)
        #expect(ada.pets?.map(\.name) == ["Tom"])
        #expect(rex.owner == nil)
    }
}
