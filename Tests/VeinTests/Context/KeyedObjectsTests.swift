import Testing
@testable import Vein

/// The identity map's table (`KeyedObjects`) against a dictionary doing the same operations: random
/// inserts, replacements, removals, sweeps and growth, with ULID keys, ids of one millisecond (which
/// differ only in their low bits) and text keys. Deletion by backward shift is where such a table goes
/// wrong; a lookup after it finds every object still in the reference.
@Suite struct KeyedObjectsTests {
    @Test(arguments: [1, 2, 3, 4])
    func randomOperationsMatchADictionary(seed: UInt64) throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = ObjectContext(store: f.store)
        let layout = try context.layout("Tag")
        var random = SplitMix64(seed: seed)  // seeded, so that a failure can be replayed
        // A pool of keys drawn from again and again, so that operations meet keys in the table.
        let millisecond = UInt64(1_700_000_000_000)
        let keys: [ObjectKey] = (0..<1_500).map { n in
            switch n % 3 {
            case 0: return ObjectKey(ULID.make())
            case 1: return ObjectKey(ULID(milliseconds: millisecond, random: (0, UInt64(n))))
            default: return ObjectKey("imported-\(n)")
            }
        }
        func object(_ key: ObjectKey) -> ModelObject {
            ModelObject(key: key, layout: layout, values: [.string("t"), .array([])], unloaded: [],
                        state: .persisted, readAt: 0)
        }

        var table = KeyedObjects()
        var reference: [ObjectKey: ModelObject] = [:]
        // What "the app" holds: a sweep keeps these and drops the rest.
        var held: [ObjectKey: ModelObject] = [:]
        for step in 0..<30_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            switch random.next() % 10 {
            case 0...3:
                let made = object(key)
                let replaced = table.update(made)
                #expect(replaced === reference[key], "update returns what it replaced, step \(step)")
                reference[key] = made
                if random.next() % 2 == 0 { held[key] = made }
            case 4:
                let made = object(key)
                table.insertIfAbsent(made)
                if reference[key] == nil { reference[key] = made }
            case 5...7:
                #expect(table.remove(key) === reference.removeValue(forKey: key), "remove, step \(step)")
            case 8:
                #expect(table[key] === reference[key], "lookup, step \(step)")
                if let (object, unique) = table.uniquelyHeld(key) {
                    #expect(object === reference[key])
                    #expect(!unique, "the reference holds it too")
                }
            default:
                if random.next() % 50 == 0 {
                    held = held.filter { reference[$0.key] === $0.value }
                    // The reference's own references would keep every object: compare with the held ones.
                    let kept = reference.filter { held[$0.key] === $0.value }
                    reference = [:]
                    table.removeUnreferenced()
                    reference = kept
                } else if random.next() % 20 == 0 {
                    table.reserveCapacity(table.count + Int(random.next() % 3_000))
                }
            }
            #expect(table.count == reference.count, "count, step \(step)")
            if step % 1_000 == 0 || step == 29_999 {
                for (key, object) in reference { #expect(table[key] === object, "every object found, step \(step)") }
                #expect(Set(table.all.map(ObjectIdentifier.init)) == Set(reference.values.map(ObjectIdentifier.init)))
            }
        }
    }

    /// An object a sweep cannot drop, because the app holds it, stays findable however many others the
    /// sweep removes around it (a run of slots emptied in one pass).
    @Test func aSweepKeepsWhatIsHeldAndFindsItAfter() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = ObjectContext(store: f.store)
        let layout = try context.layout("Tag")
        var table = KeyedObjects()
        var kept: [ModelObject] = []
        for n in 0..<5_000 {
            let made = ModelObject(key: ObjectKey(ULID.make()), layout: layout, values: [.string("t"), .array([])],
                                   unloaded: [], state: .persisted, readAt: 0)
            table.update(made)
            if n % 7 == 0 { kept.append(made) }
        }
        table.removeUnreferenced()
        #expect(table.count == kept.count)
        for object in kept { #expect(table[object.key] === object) }
    }
}
