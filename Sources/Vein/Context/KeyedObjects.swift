/// Objects by their key (`ModelObject.key`), as a table of object references and a byte beside each:
/// the key is read from the object, not kept beside it. A `Dictionary<ObjectKey, ModelObject>` bucket
/// held a key and a reference, four times a reference's size, for every row a context holds.
///
/// Open addressing with linear probing, at most three quarters full, and deletion by backward shift (no
/// tombstones: a slot is an object or empty, and every object lies between its home slot and the first
/// empty slot after it). Invariants:
/// 1. No two objects in the table have the same key.
/// 2. An object's key does not change while it is in the table (`ModelObject.rekey` is called with the
///    object out of every map keyed by it).
/// 3. From an object's home slot to its slot, no slot is empty (what a lookup's probe relies on).
/// 4. A slot's tag is 0 exactly when the slot is empty.
///
/// Not thread-safe: the identity map's owner (the context) guards it with its lock.
struct KeyedObjects {
    /// Empty, or a power of two of slots.
    private var slots: [ModelObject?] = []
    /// Beside each slot, 0 for an empty one, else seven bits of its object's hash with the high bit set:
    /// a probe passes over slots of other keys without reading their objects (a cache miss each).
    private var tags: [UInt8] = []
    private(set) var count = 0

    /// Mixed into every hash: a ULID's bits come from whoever wrote the store, and a seed fixed in the
    /// source would let a file's ids be chosen to collide.
    private static let seed = Int.random(in: .min ... .max)
    private static let minimumCapacity = 16

    private var mask: Int { slots.count - 1 }

    private static func hash(_ key: ObjectKey) -> Int { key._rawHashValue(seed: seed) }
    private static func tag(_ hash: Int) -> UInt8 { 0x80 | UInt8(truncatingIfNeeded: UInt(bitPattern: hash) >> 57) }

    /// The slot holding the object under `key`, or the empty slot where it would go. The table is not empty.
    private func probe(_ key: ObjectKey) -> (slot: Int, found: Bool) {
        let hash = Self.hash(key)
        let tag = Self.tag(hash)
        var slot = hash & mask
        while tags[slot] != 0 {
            if tags[slot] == tag, slots[slot].unsafelyUnwrapped.key == key { return (slot, true) }
            slot = (slot + 1) & mask
        }
        return (slot, false)
    }

    subscript(key: ObjectKey) -> ModelObject? {
        guard count > 0 else { return nil }
        let (slot, found) = probe(key)
        return found ? slots[slot] : nil
    }

    /// The object under `key` and whether this table holds the only reference to it; nil when none is.
    mutating func uniquelyHeld(_ key: ObjectKey) -> (object: ModelObject, unique: Bool)? {
        guard count > 0 else { return nil }
        let (slot, found) = probe(key)
        guard found else { return nil }
        let unique = isKnownUniquelyReferenced(&slots[slot])
        return (slots[slot]!, unique)
    }

    /// Enters `object` under its key, in place of any object under the same key, which it returns.
    @discardableResult
    mutating func update(_ object: ModelObject) -> ModelObject? {
        growIfFull()
        let (slot, found) = probe(object.key)
        let replaced = slots[slot]
        fill(slot, with: object)
        if !found { count += 1 }
        return replaced
    }

    /// Enters `object` unless an object under its key is there already (which stays).
    mutating func insertIfAbsent(_ object: ModelObject) {
        growIfFull()
        let (slot, found) = probe(object.key)
        guard !found else { return }
        fill(slot, with: object)
        count += 1
    }

    @discardableResult
    mutating func remove(_ key: ObjectKey) -> ModelObject? {
        guard count > 0 else { return nil }
        let (slot, found) = probe(key)
        guard found else { return nil }
        let removed = slots[slot]
        empty(slot)
        return removed
    }

    /// Removes the objects that only this table references. Safe under the owner's lock: an object only
    /// the table references can be reached only through it.
    mutating func removeUnreferenced() {
        var slot = 0
        while slot < slots.count {
            // A slot emptied takes the next object of its run, which is looked at before moving on.
            if tags[slot] != 0, isKnownUniquelyReferenced(&slots[slot]) { empty(slot) } else { slot += 1 }
        }
    }

    /// Makes room for `capacity` objects in all, so that entering them grows the table at most once.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = max(slots.count, Self.minimumCapacity)
        while size / 4 * 3 < capacity { size *= 2 }
        if size > slots.count { resize(to: size) }
    }

    /// Every object held, in no particular order.
    var all: some Sequence<ModelObject> { slots.lazy.compactMap { $0 } }

    private mutating func fill(_ slot: Int, with object: ModelObject) {
        slots[slot] = object
        tags[slot] = Self.tag(Self.hash(object.key))
    }

    private mutating func growIfFull() {
        if slots.isEmpty || (count + 1) > slots.count / 4 * 3 { resize(to: max(Self.minimumCapacity, slots.count * 2)) }
    }

    /// Moves every object into a table of `capacity` slots (moved, not copied: no retain and release of each).
    private mutating func resize(to capacity: Int) {
        var old = slots
        slots = Array(repeating: nil, count: capacity)
        tags = Array(repeating: 0, count: capacity)
        old.withUnsafeMutableBufferPointer { old in
            for index in old.indices {
                guard let object = old[index].take() else { continue }
                let hash = Self.hash(object.key)
                var slot = hash & mask
                while tags[slot] != 0 { slot = (slot + 1) & mask }
                tags[slot] = Self.tag(hash)
                slots[slot] = consume object
            }
        }
    }

    /// Empties `slot` and moves back each later object of its run whose home is at or before the hole
    /// (invariant 3): a probe that started at such an object's home would otherwise stop at the hole.
    private mutating func empty(_ slot: Int) {
        slots[slot] = nil
        tags[slot] = 0
        count -= 1
        var hole = slot
        var next = (slot + 1) & mask
        while tags[next] != 0 {
            let home = Self.hash(slots[next].unsafelyUnwrapped.key) & mask
            if (next - home) & mask >= (next - hole) & mask {
                slots.swapAt(hole, next)
                tags.swapAt(hole, next)
                hole = next
            }
            next = (next + 1) & mask
        }
    }
}
