import Testing
@testable import Vein

/// The context's pending changes as a part of their own (`PendingChanges`): each method keeps the sets
/// in step with one another, so that what a save writes, a failed save keeps and `rollback` discards
/// follows from what was recorded (ARCHITECTURE.md I2).
@Suite struct PendingChangesTests {
    /// Runs `body` with two objects of a context: `stored` saved (persisted), `new` inserted and not saved.
    static func withObjects(_ body: (_ stored: ModelObject, _ new: ModelObject) throws -> Void) throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = ObjectContext(store: f.store)
        let stored = try context.insert("Tag", ["name": .string("swift")])
        try context.save()
        let new = try context.insert("Tag", ["name": .string("sqlite")])
        try withExtendedLifetime(context) { try body(stored, new) }
    }

    @Test func aDeleteTakesAChangedObjectFromTheUpdatesAndAnInsertFromTheInserts() throws {
        try Self.withObjects { stored, new in
            var pending = PendingChanges()
            pending.recordInsert(new)
            pending.recordUpdate(stored)
            #expect(pending.objects.map(\.id) == [new.id, stored.id], "inserts first, then the changed")

            pending.recordDelete(stored)
            pending.recordDelete(new)
            #expect(pending.updated.isEmpty && pending.inserted.isEmpty)
            #expect(pending.deleted[stored.id] === stored)
            #expect(pending.deletesSinceRulesApplied.map(\.id) == [stored.id], "the rules' next run takes the stored one")
            #expect(pending.count == 1)

            pending.rulesApplied(DeleteSetProgress(nextRound: 2, marker: "m"))
            #expect(pending.deletesSinceRulesApplied.isEmpty)
        }
    }

    @Test func aSaveForgetsTheWorkButNotTheFailuresARollbackDiscardsBoth() throws {
        try Self.withObjects { stored, new in
            var pending = PendingChanges()
            pending.recordInsert(new)
            pending.recordUpdate(stored)
            pending.noteLinksChanged()
            pending.noteDeferredFailure(ContextError.unknownModel("Nope"))

            var saved = pending
            saved.forgetSavedWork()
            #expect(!saved.hasChanges && !saved.linksChangedSinceSave)
            #expect(saved.hasDeferredFailures, "a failure recorded is thrown by the save that reports it, not forgotten by one")

            let discarded = pending.discardAll()
            #expect(discarded.map(\.id) == [new.id, stored.id], "rollback detaches every object with pending work")
            #expect(!pending.hasChanges && !pending.hasDeferredFailures && !pending.linksChangedSinceSave)
        }
    }

    @Test func aCheckpointPutsBackWhatAFailedSavesUpsertMoved() throws {
        try Self.withObjects { stored, new in
            var pending = PendingChanges()
            pending.recordInsert(new)
            let checkpoint = pending.checkpoint()

            pending.recordInsertBecameUpdate(new)
            pending.recordDelete(stored)
            #expect(pending.inserted.isEmpty && pending.updated[new.id] === new)

            pending.restore(checkpoint)
            #expect(pending.inserted.contains(new) && pending.updated.isEmpty && pending.deleted.isEmpty)
        }
    }

    @Test func theTakenFailureIsTheFirstAndTheRestGoWithIt() {
        var pending = PendingChanges()
        pending.noteDeferredFailure(ContextError.unknownModel("First"))
        pending.noteDeferredFailure(ContextError.unknownModel("Second"))
        #expect(pending.takeDeferredFailure() as? ContextError == .unknownModel("First"))
        #expect(pending.takeDeferredFailure() == nil)
    }

    /// `PendingObjects`, keyed by `ObjectKey`, against a dictionary by id doing the same operations:
    /// objects of two models, ULID and text ids, an id taken over by an object of the other model (ids
    /// imported into two models), removals of the object filed and of another with its id.
    @Test(arguments: [1, 2, 3])
    func pendingObjectsMatchADictionaryByID(seed: UInt64) throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = ObjectContext(store: f.store)
        let layouts = [try context.layout("Tag"), try context.layout("Passport")]
        var random = SplitMix64(seed: seed)
        let ids = (0..<60).map { n in n % 2 == 0 ? ULID.make().description : "imported-\(n)" }
        var objects = PendingObjects()
        var reference: [String: ModelObject] = [:]
        for step in 0..<4_000 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let layout = layouts[Int(random.next() % 2)]
            let made = ModelObject(key: ObjectKey(id), layout: layout, values: (0..<layout.columnCount).map { layout.isToMany[$0] ? .array([]) : .string("t") },
                                   unloaded: [], state: .persisted, readAt: 0)
            switch random.next() % 4 {
            case 0, 1:
                objects.insert(made)
                reference[id] = made
            case 2:
                objects.remove(made)  // another object with the id: nothing goes
            default:
                if let filed = reference[id] {
                    objects.remove(filed)
                    reference[id] = nil
                }
            }
            try #require(objects.count == reference.count, "step \(step)")
            try #require(objects[id] === reference[id], "step \(step)")
            try #require(!objects.holds(made) || reference[id] === made, "step \(step)")
            for model in ["Tag", "Passport"] {
                let expected = reference.filter { $0.value.modelName == model }.keys.sorted()
                try #require(objects.ids(of: model).sorted() == expected, "step \(step), \(model)")
                try #require(objects.count(of: model) == expected.count && objects.contains(model: model) == !expected.isEmpty)
            }
            try #require(Set(objects.models) == Set(reference.values.map(\.modelName)), "step \(step)")
        }
    }
}
