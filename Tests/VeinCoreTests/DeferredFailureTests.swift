import Testing
import Vein
import VeinCore

/// `insert` and `delete` do not throw, as SwiftData's do not: the one that fails is not made, and the next
/// `save` throws its error, writing nothing. (InsertionAtomicityTests and InsertAsUpsertTests: inserts.)
@Suite struct DeferredFailureTests {
    enum KennelSchema: VersionedSchema {
        static let version = ModelVersion(1, 0, 0)
        static let models: [any PersistentModel.Type] = [Kennel.self, Dog.self]

        @Model final class Kennel {
            var name: String
            @Relationship(deleteRule: .deny) var dogs: [Dog] = []
            init(name: String) { self.name = name }
        }

        @Model final class Dog {
            var name: String
            init(name: String) { self.name = name }
        }
    }

    /// A kennel that still has a dog, saved, with other work pending.
    static func kennelWithADog() throws -> (ModelContainer, KennelSchema.Kennel) {
        let container = try ModelContainer(for: KennelSchema.self, at: nil, appID: "com.example.kennel")
        let kennel = KennelSchema.Kennel(name: "North")
        kennel.dogs = [KennelSchema.Dog(name: "Rex")]
        container.context.insert(kennel)
        try container.context.save()
        container.context.insert(KennelSchema.Dog(name: "Fido"))
        return (container, kennel)
    }

    @Test func aDeleteADenyRuleRefusesIsThrownByTheNextSave() throws {
        let (container, kennel) = try Self.kennelWithADog()
        let context = container.context
        let pending = context.engine.changes()

        context.delete(kennel)
        #expect(kennel._$backing.object?.isDeleted == false && kennel.dogs.map(\.name) == ["Rex"], "the refused delete is not made")
        #expect(context.engine.changes() == pending)
        let error = context.deferredFailure(ContextError.self)
        #expect(error?.description == "cannot delete Kennel \(kennel.persistentModelID.key): its dogs still names 1 row (delete rule deny)")
        #expect(try container.newContext().fetchCount(KennelSchema.Dog.self) == 1, "the failed save wrote nothing")

        try context.save()
        #expect(try container.newContext().fetch(KennelSchema.Dog.self).map(\.name) == ["Rex", "Fido"], "the next save writes the rest")
    }

    @Test func rollbackForgetsARecordedFailure() throws {
        let (container, kennel) = try Self.kennelWithADog()
        let context = container.context
        context.delete(kennel)
        context.rollback()
        #expect(!context.hasChanges)
        try context.save()
        #expect(try container.newContext().fetchCount(KennelSchema.Kennel.self) == 1)
    }

    @Test func aFailureInATransactionsBlockFailsTheTransaction() throws {
        let (container, kennel) = try Self.kennelWithADog()
        let context = container.context
        let error = #expect(throws: ContextError.self) {
            try context.transaction {
                kennel.name = "South"
                context.delete(kennel)
            }
        }
        #expect(error == .deleteDenied(model: "Kennel", id: kennel.persistentModelID.key, relationship: "dogs", count: 1))
        #expect(try container.newContext().fetch(KennelSchema.Kennel.self).map(\.name) == ["North"], "nothing written")
        #expect(context.hasChanges && kennel.name == "South", "the block's changes stay pending, the failure is reported")
    }
}
