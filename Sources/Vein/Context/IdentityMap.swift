/// A context's objects by row: one object per row (ARCHITECTURE.md I1), in a table of the objects alone
/// (`KeyedObjects`, which reads each one's key from the object), held strongly and swept of
/// objects nothing else holds whenever it has doubled since the last sweep. To anyone outside that is as
/// weak as a weak map (an object nobody holds can never be observed, so it may as well be gone), without a
/// weak reference per fetched row.
///
/// Its state is its own: the context reaches it only through these methods, under the context's lock.
struct IdentityMap {
    private var objects = KeyedObjects()
    /// Models of which the context has held an object (delete rules keep such objects in step in memory).
    private var heldModels: Set<String> = []
    /// The layout of the last object registered: its model is in `heldModels` already, so a fetch hashes
    /// the model's name once, not once per row (a hash per row was a large part of a fetch's own work).
    private var lastRegisteredLayout: ModelLayout?
    private var sweepThreshold = IdentityMap.minimumSweepThreshold
    /// Set while `registeringRetained` runs.
    private var sweepsDeferred = false
    static let minimumSweepThreshold = 1024

    var count: Int { objects.count }

    /// Every object held (in no particular order).
    var all: some Sequence<ModelObject> { objects.all }

    subscript(key: ObjectKey) -> ModelObject? { objects[key] }

    /// Whether the context has held an object of `model` since it was made.
    func hasHeld(_ model: String) -> Bool { heldModels.contains(model) }

    /// Enters `object` under its key, sweeping first when the map has doubled (unless a fetch is under way).
    mutating func register(_ object: ModelObject) {
        if objects.count >= sweepThreshold, !sweepsDeferred { sweep() }
        objects.update(object)
        if object.layout !== lastRegisteredLayout {
            heldModels.insert(object.modelName)
            lastRegisteredLayout = object.layout
        }
    }

    /// Enters the objects of a model the context never held together, the table grown once to their
    /// number. The same id in another model's table (imported ids): the map keeps the object it had.
    mutating func registerUnheld(_ new: [ModelObject], layout: ModelLayout) {
        guard !new.isEmpty else { return }
        objects.reserveCapacity(objects.count + new.count)
        for object in new { objects.insertIfAbsent(object) }
        heldModels.insert(layout.model.name)
        lastRegisteredLayout = layout
    }

    /// Puts `object` under `key`, its key (or removes the entry, for nil) without a sweep: undoing a failed save.
    mutating func restore(_ object: ModelObject?, _ key: ObjectKey) {
        guard let object else { objects.remove(key); return }
        precondition(object.key == key, "an object restored to the identity map under another key")
        objects.update(object)
    }

    /// Gives `object` the key of `id`, its entry (when the map holds it) moving with it: an object's key
    /// does not change while it is in the map (KeyedObjects.swift, invariant 2).
    mutating func rekey(_ object: ModelObject, to id: String) {
        let held = objects[object.key] === object
        if held { objects.remove(object.key) }
        object.rekey(id)
        if held { objects.update(object) }
    }

    @discardableResult
    mutating func remove(_ key: ObjectKey) -> ModelObject? { objects.remove(key) }

    /// The object of `model` under `key`, and whether the map is the only one holding it (nothing outside
    /// can then tell it from another object for the same row); nil when the map holds none of that model.
    mutating func entry(_ key: ObjectKey, of model: String) -> (held: ModelObject, onlyInMap: Bool)? {
        guard let (held, unique) = objects.uniquelyHeld(key), held.modelName == model else { return nil }
        return (held, unique)
    }

    /// Runs a loop that registers objects it keeps in an array until it returns (a fetch): a sweep inside
    /// it would find none of them unreferenced, so the map is swept once before it and the next sweep
    /// waits for the first registration after it (its uniqueness checks of every entry, each time the map
    /// doubled during a long fetch, were a large part of the fetch's own work).
    mutating func beginRetaining() {
        if objects.count >= sweepThreshold { sweep() }
        sweepsDeferred = true
    }

    mutating func endRetaining() { sweepsDeferred = false }

    /// What was just read is held by the map only until the app takes it: the next sweep waits until the
    /// map has doubled again, rather than dropping it at the next registration (a prefetch).
    mutating func keepWhatWasRead() { sweepThreshold = max(sweepThreshold, objects.count * 2) }

    /// Drops the objects only the map holds. Safe under the context's lock: an object whose one reference
    /// is the map's can be reached only through the map, so no other thread can take it while we look.
    private mutating func sweep() {
        objects.removeUnreferenced()
        sweepThreshold = max(Self.minimumSweepThreshold, objects.count * 2)
    }
}
