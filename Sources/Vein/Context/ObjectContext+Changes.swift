/// The pending changes as a list (`changes()`), and a statement's own among them (`recordingChanges`).
extension ObjectContext {
    public var hasChanges: Bool { lock.withLock { pending.hasChanges } }

    public struct Change: Equatable, Sendable {
        public enum Kind: String, Sendable { case insert, update, delete }
        public let kind: Kind
        public let model: String
        public let id: String
        /// Changed columns (updates only).
        public let fields: [String]
    }

    /// What `save` would write, in order: inserts in the order made, then updates and deletes by id.
    public func changes() -> [Change] {
        lock.withLock { pending.list }
    }

    /// How many changes `changes()` lists, without listing them.
    public var changeCount: Int {
        lock.withLock { pending.count }
    }

    /// A recording of the changes made while `recordingChanges` runs (see `changes(since:alsoOf:)`).
    package struct ChangeRecord {
        fileprivate let start: Int
    }

    /// Runs `body` (under the context's lock) while the context notes each object it gives a pending
    /// change, with the change it had before: `changes(since:alsoOf:)` then lists what the body changed
    /// in O(what it touched), whatever else is pending. Recordings nest.
    package func recordingChanges<T>(_ body: (ChangeRecord) throws -> T) rethrows -> T {
        try lock.withLock {
            let start = pending.beginRecording()
            defer { pending.endRecording() }
            return try body(ChangeRecord(start: start))
        }
    }

    /// The pending changes that differ from what they were when the recording began (a change made,
    /// widened or undone to nothing is not listed: only what is pending now), and those of the objects
    /// with the ids `alsoOf` whatever they were; in `changes()`'s order.
    package func changes(since record: ChangeRecord, alsoOf ids: Set<String> = []) -> [Change] {
        lock.withLock {
            var inserts: [(Int, Change)] = [], updates: [Change] = [], deletes: [String: String] = [:]
            var listed = Set<ListedChange>()
            func list(_ change: Change?, of object: ModelObject?) {
                guard let change, listed.insert(ListedChange(kind: change.kind, id: change.id)).inserted else { return }
                switch change.kind {
                case .insert: inserts.append((object.flatMap { pending.inserted.position(of: $0) } ?? .max, change))
                case .update: updates.append(change)
                case .delete: deletes[change.id] = change.model
                }
            }
            var covered = Set<String>()
            for entry in pending.recorded(from: record.start) {
                let id = entry.object?.id ?? entry.ruleDeleted!.id
                covered.insert(id)
                let now = entry.object.map { pending.pendingChange(of: $0) } ?? pending.ruleDeletion(id)
                if now != entry.before || ids.contains(id) { list(now, of: entry.object) }
            }
            for id in ids where !covered.contains(id) {
                let object = pending.updated[id] ?? pending.deleted[id] ?? identityMap[ObjectKey(id)]
                list(object.flatMap { pending.pendingChange(of: $0) }, of: object)
                list(pending.ruleDeletion(id), of: nil)
            }
            return inserts.sorted { $0.0 < $1.0 }.map(\.1) + updates.sorted { $0.id < $1.id }
                + deletes.sorted { $0.key < $1.key }.map { Change(kind: .delete, model: $0.value, id: $0.key, fields: []) }
        }
    }

    /// A change listed by `changes(since:alsoOf:)` already.
    private struct ListedChange: Hashable {
        let kind: Change.Kind
        let id: String
    }
}
