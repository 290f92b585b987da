/// A context's unit of work until it is saved or rolled back: the objects inserted, changed and deleted,
/// the rows the delete rules take with them, what the next save must check again of them, how far the
/// delete rules have been applied, the recordings of a statement's own changes, and the failures the
/// next save throws. A save that commits forgets it (`forgetSavedWork`), one that fails leaves it as it
/// was (ARCHITECTURE.md I2, `restore`), and `rollback` discards it (`discardAll`).
///
/// Its state is its own: the context records and asks through these methods, under its lock. The sets of
/// pending objects can be read as they are (a fetch merges them, a save writes them); they change only
/// through what the methods here say happened.
struct PendingChanges {
    /// Strongly held until saved or rolled back (insertion order kept). Each kept by model too: what a
    /// statement asks of the pending work costs what it touches, not what is pending.
    private(set) var inserted: PendingInserts = []
    private(set) var updated = PendingObjects()
    private(set) var deleted = PendingObjects()
    /// Rows the pending deletes take with them by `cascade` in the store that this context does not hold
    /// (id → model), as `applyDeleteRules` found them; `save` finds them again.
    private(set) var deletedByRule: [String: String] = [:]
    /// Objects `delete` took with an owner because the owner's link-table list, as this context read it,
    /// held them (member id → owner and relationship): `save` checks each link still stands in the store.
    private var cascadedThroughLinks: [String: (owner: ModelObject, relationship: Int)] = [:]
    /// A to-many link was changed since the last save or rollback (`applyDeleteRules` then leaves to the
    /// save what the store's links say a cascade takes).
    private(set) var linksChangedSinceSave = false
    /// How far the temporary delete set holds the pending deletes (`applyDeleteRules`), and the objects
    /// deleted since.
    private(set) var deleteSetProgress: DeleteSetProgress?
    private var deletedSinceRulesApplied: [ModelObject] = []
    /// The changes objects had before the recordings open touched them (`ObjectContext.recordingChanges`).
    private var journal = ChangeJournal()
    /// Failures that could not be thrown where they happened (VeinCore's accessors, `insert`, `delete`):
    /// the next `save` throws the first and writes nothing (`ObjectContext.noteDeferredFailure`).
    private var deferredFailures: [any Error] = []

    // MARK: What is pending

    /// Whether a save has anything to write.
    var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

    /// How many changes `changes` lists, without listing them.
    var count: Int { inserted.count + updated.count + deleted.count + deletedByRule.count }

    /// Whether `model` has a pending insert, change or delete (which a fetch of it must merge).
    func touches(_ model: String) -> Bool {
        !inserted.of(model).isEmpty || updated.contains(model: model) || deleted.contains(model: model)
    }

    /// Every object with pending work: the inserts in their order, then the changed, then the deleted.
    var objects: [ModelObject] { inserted + Array(updated.values) + Array(deleted.values) }

    /// The models the pending changes write, read inside the save transaction after its writes (see
    /// `StoreChange.models`) with the models its delete rules reached (`deletedModels`): the models of the
    /// objects inserted, changed and deleted (a link changes both objects: `set` keeps the inverse side in
    /// step), the rows delete rules took, and the models on either side of a deleted model's
    /// relationships, whose links and references to it the store cleared without this context holding
    /// their objects.
    func modelsWritten(deletedModels: Set<String>, storages: [RelationshipStorage]) -> Set<String> {
        // By model, not by object: a save of many objects asks once per model.
        let deletedAll = deletedModels.union(deletedByRule.values).union(deleted.models)
        var models = deletedAll.union(inserted.models).union(updated.models)
        for storage in storages {
            if deletedAll.contains(storage.model) { models.insert(storage.target) }
            if deletedAll.contains(storage.target) { models.insert(storage.model) }
        }
        return models
    }

    // MARK: Recording work

    /// Notes, for the recordings open, the object's pending change before what the caller is about to do
    /// to it.
    mutating func aboutToChange(_ object: ModelObject) {
        guard journal.isFirstTouch(object) else { return }
        journal.enter(object, before: pendingChange(of: object))
    }

    mutating func recordInsert(_ object: ModelObject) { inserted.append(object) }

    /// A stored object was changed (a field, or a link): the save writes it.
    mutating func recordUpdate(_ object: ModelObject) { updated.insert(object) }

    /// A to-many link changed, on any object.
    mutating func noteLinksChanged() { linksChangedSinceSave = true }

    /// The caller put `object` back as it was before its change (a failed batch of sets): the save no
    /// longer writes it.
    mutating func forgetUpdate(_ object: ModelObject) {
        updated.remove(object)
    }

    /// Objects inserted since the last save that an insert which failed part-way leaves unmade.
    mutating func forgetInserts(_ objects: [ModelObject]) {
        for object in objects { inserted.remove(object) }
    }

    /// `object` is deleted, by name or as a delete rule takes it in memory: a pending insert is simply
    /// dropped; a stored object's row goes at the save (and it joins the delete set at the next
    /// `applyDeleteRules`).
    mutating func recordDelete(_ object: ModelObject) {
        if object.state == .inserted { return inserted.remove(object) }
        updated.removeValue(forKey: object.key)
        deleted.insert(object)
        deletedByRule.removeValue(forKey: object.id)
        deletedSinceRulesApplied.append(object)
    }

    /// `member` is deleted with `owner` because the owner's link-table list `relationship`, as this
    /// context read it, held it.
    mutating func recordDeleteThroughLink(of member: String, owner: ModelObject, relationship: Int) {
        cascadedThroughLinks[member] = (owner, relationship)
    }

    /// `member` is deleted by name now: deleted whatever the links say.
    mutating func forgetDeleteThroughLink(of member: String) { cascadedThroughLinks.removeValue(forKey: member) }

    /// The pending deletes taken through a link (`recordDeleteThroughLink`), by member id: each link the
    /// save must find still standing.
    var deletesThroughLinks: [(member: String, owner: ModelObject, relationship: Int)] {
        cascadedThroughLinks.filter { deleted[$0.key] != nil }.sorted { $0.key < $1.key }
            .map { (member: $0.key, owner: $0.value.owner, relationship: $0.value.relationship) }
    }

    /// A failure to throw at the next save.
    mutating func noteDeferredFailure(_ error: any Error) { deferredFailures.append(error) }

    var hasDeferredFailures: Bool { !deferredFailures.isEmpty }

    /// The first failure recorded, and the others forgotten with it: the save that reports it writes
    /// nothing, and the next one can succeed.
    mutating func takeDeferredFailure() -> (any Error)? {
        defer { deferredFailures = [] }
        return deferredFailures.first
    }

    // MARK: Delete rules

    /// The deletes made since the delete rules were last applied and still pending as made: what the
    /// next run adds to the delete set.
    var deletesSinceRulesApplied: [ModelObject] { deletedSinceRulesApplied.filter { deleted.holds($0) } }

    /// A held object without changes that a delete rule takes in the store: the save deletes it as if named.
    mutating func recordHeldObjectDeletedByRule(_ object: ModelObject) { deleted.insert(object) }

    /// Makes `rows` the rows the delete rules take that this context does not hold, noting for the
    /// recordings open each row whose pending delete it adds or drops.
    mutating func replaceDeletedByRule(with rows: [String: String]) {
        if journal.isRecording {
            for (id, model) in rows where deletedByRule[id] == nil { journal.touchRuleDeleted(id, model: model, before: nil) }
            for (id, model) in deletedByRule where rows[id] == nil {
                journal.touchRuleDeleted(id, model: model, before: ruleDeletion(id))
            }
        }
        deletedByRule = rows
    }

    /// The delete set no longer holds what a completed run of the rules left in it (a run or a save is
    /// filling it).
    mutating func forgetDeleteSetProgress() { deleteSetProgress = nil }

    /// A run of the delete rules completed: the delete set holds every pending delete, up to `progress`.
    mutating func rulesApplied(_ progress: DeleteSetProgress) {
        deleteSetProgress = progress
        deletedSinceRulesApplied = []
    }

    // MARK: Recordings

    /// Opens a recording (they nest); its entries are the ones from the returned position on.
    mutating func beginRecording() -> Int { journal.begin() }

    mutating func endRecording() { journal.end() }

    /// What the recordings noted from `start` on.
    func recorded(from start: Int) -> ArraySlice<ChangeJournal.Entry> { journal.entries[start...] }

    // MARK: Saving and rolling back

    /// The pending inserts, changes and deletes as they stand, to put back (`restore`) when a save that
    /// moves them (its upserts) fails.
    struct Checkpoint {
        fileprivate let inserted: PendingInserts
        fileprivate let updated: PendingObjects
        fileprivate let deleted: PendingObjects
    }

    func checkpoint() -> Checkpoint { Checkpoint(inserted: inserted, updated: updated, deleted: deleted) }

    mutating func restore(_ checkpoint: Checkpoint) {
        inserted = checkpoint.inserted
        updated = checkpoint.updated
        deleted = checkpoint.deleted
    }

    /// The pending insert `object` became the pending update of the stored row whose key it took (a
    /// save's upsert, `object` rekeyed already).
    mutating func recordInsertBecameUpdate(_ object: ModelObject) {
        inserted.remove(object)
        updated.insert(object)
    }

    /// A save committed every pending change: nothing of that work is left to write or to follow.
    mutating func forgetSavedWork() {
        inserted = []
        updated = PendingObjects()
        deleted = PendingObjects()
        deletedByRule = [:]
        cascadedThroughLinks = [:]
        linksChangedSinceSave = false
        deleteSetProgress = nil
        deletedSinceRulesApplied = []
    }

    /// Discards every pending change and failure (`rollback`); returns the objects that had pending work,
    /// for the caller to detach.
    mutating func discardAll() -> [ModelObject] {
        let discarded = objects
        forgetSavedWork()
        deferredFailures = []
        return discarded
    }
}
