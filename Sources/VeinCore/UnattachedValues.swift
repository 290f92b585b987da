import Synchronization
import Vein

/// What an instance holds before it is in a context: the field values and links its initializer and the
/// app gave it, and the key its row will have if its `persistentModelID` was asked first. A backing makes
/// one at the first value given and lets it go when attached; a fetched instance, attached from the start,
/// never has one, so what an object costs in memory is not paid again for what only a new one needs.
///
/// Guarded by `ModelBacking.instanceLock`, but for `hasValue`, which an initializer calls before anything
/// else can reach the instance (see `ModelBacking.hasPendingValue`).
final class UnattachedValues {
    /// In the order first given: a short list searched in order, not a dictionary (hashing each name,
    /// and growing the table, was a large part of a typed insert's own work). Each keeps the column its
    /// accessor gave (-1 when none), which the insert passes on, and which tells two fields apart without
    /// comparing their names.
    private(set) var values: [PendingValue] = []
    private(set) var links: [String: [any PersistentModel]] = [:]
    /// When each link was assigned (`linkClock`): an insert makes the links of all the instances it inserts
    /// in the order the app assigned them, so that `pet.owner = nil` in `Pet`'s initializer does not undo a
    /// later `person.pets = [pet]`, whose inverse is that same `owner`.
    private var linkTimes: [String: UInt64] = [:]
    private static let linkClock = Atomic<UInt64>(0)
    /// The key the insert makes the row under, once chosen.
    var reservedKey: ULID?

    /// Whether the field or relationship `name` was given a value.
    func hasValue(_ name: String) -> Bool {
        values.contains { $0.key == name } || (!links.isEmpty && links[name] != nil)
    }

    func value(_ name: String) -> Value? {
        values.first { $0.key == name }?.value
    }

    func set(_ name: String, column: Int, _ value: Value) {
        // Two different known columns are two fields, without comparing the names (comparing two
        // different short names is a call into the runtime; two equal ones compare as two words).
        if let i = values.firstIndex(where: { (column < 0 || $0.column < 0 || $0.column == column) && $0.key == name }) {
            values[i].value = value
            return
        }
        if values.isEmpty { values.reserveCapacity(16) }
        values.append(PendingValue(key: name, column: column, value: value))
    }

    func setLink(_ name: String, _ targets: [any PersistentModel]) {
        links[name] = targets
        linkTimes[name] = Self.linkClock.add(1, ordering: .relaxed).newValue
    }

    /// When the link `name` was assigned, relative to every other instance's (0: not recorded).
    func linkTime(_ name: String) -> UInt64 { linkTimes[name] ?? 0 }

    /// The values and links, taken out (the reserved key stays).
    func take() -> (values: [String: Value], links: [String: [any PersistentModel]]) {
        defer { values = []; links = [:]; linkTimes = [:] }
        return (Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }), links)
    }

    /// Puts back what `take` took.
    func restore(_ taken: [String: Value], _ takenLinks: [String: [any PersistentModel]]) {
        values = taken.map { PendingValue(key: $0.key, column: -1, value: $0.value) }
        links = takenLinks
    }
}
