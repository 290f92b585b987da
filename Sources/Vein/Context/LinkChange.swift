/// The pending change to one to-many of one object, written by `save` link by link (store format 2 keeps
/// no list to rewrite). Incremental changes (`added`, `removed`) need no read of the list, so linking
/// one object into a relationship of 200,000 costs what it costs on an empty one; `replaced` (the whole
/// list set at once) is diffed at save against the stored list, and only the changed links are written.
struct LinkChange {
    /// Ids linked at the end of the list, in order.
    private(set) var added: [String] = []
    /// Ids unlinked.
    private(set) var removed: Set<String> = []
    private var addedSet: Set<String> = []
    /// The list was set as a whole: save writes the difference between the stored list and the
    /// object's current one (then `added`/`removed` are not used).
    var replaced = false

    mutating func add(_ id: String) {
        guard !replaced else { return }
        // A removed id stays removed too: save unlinks it, then links it again at the end (as in memory).
        if addedSet.insert(id).inserted { added.append(id) }
    }

    mutating func remove(_ id: String) {
        guard !replaced else { return }
        if addedSet.remove(id) != nil, let k = added.lastIndex(of: id) { added.remove(at: k) }
        removed.insert(id)
    }

    /// The stored list with these changes applied (for a list first read after them).
    func applied(to stored: [String]) -> [String] {
        let kept = stored.filter { !removed.contains($0) }
        let present = Set(kept)
        return kept + added.filter { !present.contains($0) }
    }
}
