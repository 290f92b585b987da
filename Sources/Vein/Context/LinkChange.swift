/// The pending change to one to-many of one object, written by `save` link by link (since store format 2
/// the store keeps no list to rewrite). Incremental changes (`added`, `removed`) need no read of the list, so linking
/// one object into a relationship of 200,000 costs what it costs on an empty one; `replaced` (the whole
/// list set at once) is diffed at save against the stored list, and only the changed links are written.
///
/// Every change is O(1), however many are pending: unlinking one of many pending links empties its slot,
/// and an all-or-nothing set (`ObjectContext.setAll`) keeps a log of what to undo from a checkpoint instead
/// of a copy of the change (a copy, made for each of 10,000 attachments inserted into one post, cost the
/// length of the post's pending list each time).
struct LinkChange {
    /// Ids linked at the end of the list, in order; nil where one was unlinked again.
    private var addedSlots: [String?] = []
    private var addedSlot: [String: Int] = [:]
    /// Ids unlinked.
    private(set) var removed: Set<String> = []
    /// The list was set as a whole: save writes the difference between the stored list and the
    /// object's current one (then `added`/`removed` are not used).
    private(set) var replaced = false
    /// While a checkpoint is open: how to undo each change since it, the latest last.
    private var undoLog: [Undo]?

    private enum Undo {
        case unlinkAdded(String)
        case relinkAdded(String, slot: Int)
        case forgetRemoved(String)
        case unmarkReplaced
    }

    /// Ids linked at the end of the list, in order.
    var added: [String] { addedSlots.compactMap { $0 } }

    func isAdded(_ id: String) -> Bool { addedSlot[id] != nil }

    mutating func add(_ id: String) {
        guard !replaced, addedSlot[id] == nil else { return }
        // A removed id stays removed too: save unlinks it, then links it again at the end (as in memory).
        addedSlot[id] = addedSlots.count
        addedSlots.append(id)
        undoLog?.append(.unlinkAdded(id))
    }

    mutating func remove(_ id: String) {
        guard !replaced else { return }
        if let slot = addedSlot.removeValue(forKey: id) {
            addedSlots[slot] = nil
            undoLog?.append(.relinkAdded(id, slot: slot))
            // Not under a checkpoint: the log names slots.
            if undoLog == nil, addedSlots.count > 64, addedSlots.count > 2 * addedSlot.count { closeGaps() }
        }
        if removed.insert(id).inserted { undoLog?.append(.forgetRemoved(id)) }
    }

    mutating func markReplaced() {
        if !replaced { undoLog?.append(.unmarkReplaced) }
        replaced = true
    }

    private mutating func closeGaps() {
        addedSlots = addedSlots.filter { $0 != nil }
        for (slot, id) in addedSlots.enumerated() { addedSlot[id!] = slot }
    }

    /// Starts logging what undoes each change from now on (`rollBackToCheckpoint`).
    mutating func openCheckpoint() { undoLog = [] }

    /// Keeps the changes made since the checkpoint, and stops logging.
    mutating func closeCheckpoint() { undoLog = nil }

    /// Undoes every change made since the checkpoint, and stops logging.
    mutating func rollBackToCheckpoint() {
        guard let log = undoLog else { return }
        undoLog = nil
        for undo in log.reversed() {
            switch undo {
            case .unlinkAdded(let id):
                if let slot = addedSlot.removeValue(forKey: id) {
                    if slot == addedSlots.count - 1 { addedSlots.removeLast() } else { addedSlots[slot] = nil }
                }
            case .relinkAdded(let id, let slot):
                addedSlots[slot] = id
                addedSlot[id] = slot
            case .forgetRemoved(let id): removed.remove(id)
            case .unmarkReplaced: replaced = false
            }
        }
    }

    /// The same change with the id `old` named `new` (a key a save-time upsert changed); nil when it does
    /// not name `old`. An id named twice then is kept once, where it was first. No checkpoint is open.
    func renaming(_ old: String, to new: String) -> LinkChange? {
        guard addedSlot[old] != nil || removed.contains(old) else { return nil }
        var copy = self
        if let slot = copy.addedSlot.removeValue(forKey: old) {
            if let other = copy.addedSlot[new], other < slot {
                copy.addedSlots[slot] = nil
            } else {
                if let other = copy.addedSlot[new] { copy.addedSlots[other] = nil }
                copy.addedSlots[slot] = new
                copy.addedSlot[new] = slot
            }
        }
        if copy.removed.remove(old) != nil { copy.removed.insert(new) }
        return copy
    }

    /// The stored list with these changes applied (for a list first read after them).
    func applied(to stored: [String]) -> [String] {
        let kept = stored.filter { !removed.contains($0) }
        let present = Set(kept)
        return kept + added.filter { !present.contains($0) }
    }
}
