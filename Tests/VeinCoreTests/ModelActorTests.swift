import Foundation
import Testing
import VeinCore

/// SwiftData's `@ModelActor`, as its documentation writes one: the actor's context is its own, made from
/// the container; what it saves the container's other contexts see.
@ModelActor actor PetImporter {
    func importPets(_ names: [String]) throws -> Int {
        for name in names { modelContext.insert(PetStore.Pet(name: name)) }
        try modelContext.save()
        return try modelContext.fetchCount(FetchDescriptor<PetStore.Pet>())
    }

    func unsavedInsert(_ name: String) throws {
        modelContext.insert(PetStore.Pet(name: name))
    }
}

@Suite struct ModelActorTests {
    @Test func anActorSavesAndAnotherContextSeesIt() async throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        let importer = PetImporter(modelContainer: container)
        #expect(importer.modelContainer === container)
        #expect(importer.modelContext !== container.mainContext, "a context of its own")

        #expect(try await importer.importPets(["Rex", "Tom"]) == 2)
        #expect(try container.mainContext.fetch(FetchDescriptor<PetStore.Pet>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Rex", "Tom"])

        // Its unsaved work is its own.
        try await importer.unsavedInsert("Kit")
        #expect(try container.mainContext.fetchCount(FetchDescriptor<PetStore.Pet>()) == 2)
        #expect(importer.modelContext.hasChanges)
        #expect(!container.mainContext.hasChanges)
    }

    @Test func manyActorsAtOnce() async throws {
        let container = try ModelContainer(for: PetStore.self, at: nil, appID: "com.example.petstore")
        try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<4 {
                group.addTask { try await PetImporter(modelContainer: container).importPets((0..<25).map { "pet \(n).\($0)" }) }
            }
            for try await _ in group {}
        }
        #expect(try container.mainContext.fetchCount(FetchDescriptor<PetStore.Pet>()) == 100)
    }
}
