/// The objects a context has inserted since its last save, in insertion order (`save` writes them in it,
/// `changes()` lists them in it), each model's apart (a fetch merges its own model's only).
///
/// Appending, removing (a pending insert deleted again) and asking whether an object is pending are
/// O(1), whatever else is pending: a REPL session holds 100,000 of them and deletes one of them at a time.
/// A removed object leaves a gap, closed when gaps would be half the storage.
struct PendingInserts: Sequence, ExpressibleByArrayLiteral {
    private var all = OrderedObjects()
    /// Each model's, found by its layout's identity: a store has a handful of models, and comparing
    /// references costs less than hashing the model's name on every insert.
    private var byModel: [(layout: ModelLayout, objects: OrderedObjects)] = []

    init(arrayLiteral objects: ModelObject...) {
        for object in objects { append(object) }
    }

    var count: Int { all.count }
    var isEmpty: Bool { all.isEmpty }

    func contains(_ object: ModelObject) -> Bool { all.contains(object) }

    /// Where the object stands among the pending inserts: a smaller number was inserted earlier.
    func position(of object: ModelObject) -> Int? { all.position(of: object) }

    /// The pending inserts of `model`, in insertion order.
    func of(_ model: String) -> OrderedObjects {
        byModel.first { $0.layout.model.name == model }?.objects ?? OrderedObjects()
    }

    mutating func append(_ object: ModelObject) {
        all.append(object)
        if let i = index(of: object.layout) { byModel[i].objects.append(object) } else {
            var objects = OrderedObjects()
            objects.append(object)
            byModel.append((object.layout, objects))
        }
    }

    mutating func remove(_ object: ModelObject) {
        all.remove(object)
        if let i = index(of: object.layout) { byModel[i].objects.remove(object) }
    }

    /// The models with a pending insert.
    var models: [String] { byModel.filter { !$0.objects.isEmpty }.map(\.layout.model.name) }

    private func index(of layout: ModelLayout) -> Int? { byModel.firstIndex { $0.layout === layout } }

    func makeIterator() -> OrderedObjects.Iterator { all.makeIterator() }
}

/// Objects in the order they were added, each once, with O(1) membership and removal.
struct OrderedObjects: Sequence {
    private var slots: [ModelObject?] = []
    private var slotOf: [ObjectAddress: Int] = [:]

    var count: Int { slotOf.count }
    var isEmpty: Bool { slotOf.isEmpty }

    func contains(_ object: ModelObject) -> Bool { slotOf[ObjectAddress(object)] != nil }

    /// Increases with the order of addition (gaps closed keep it).
    func position(of object: ModelObject) -> Int? { slotOf[ObjectAddress(object)] }

    mutating func append(_ object: ModelObject) {
        // One hash lookup, not a test and then an insert: every insert of a context comes here twice.
        if let slot = slotOf.updateValue(slots.count, forKey: ObjectAddress(object)) {
            slotOf[ObjectAddress(object)] = slot  // there already: it keeps its place
            return
        }
        slots.append(object)
    }

    mutating func remove(_ object: ModelObject) {
        guard let slot = slotOf.removeValue(forKey: ObjectAddress(object)) else { return }
        slots[slot] = nil
        if slots.count > 64, slots.count > 2 * slotOf.count { closeGaps() }
    }

    private mutating func closeGaps() {
        slots = slots.filter { $0 != nil }
        for (slot, object) in slots.enumerated() { slotOf[ObjectAddress(object!)] = slot }
    }

    struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[ModelObject?]>
        mutating func next() -> ModelObject? {
            while let slot = base.next() { if let object = slot { return object } }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(base: slots.makeIterator()) }
}
