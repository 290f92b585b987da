/// What a context's pending changes were, object by object, before the work being recorded touched
/// them (`ObjectContext.recordingChanges`, `PendingChanges.aboutToChange`): a statement's own changes are
/// then found among the objects it touched, in O(what it touched). Comparing the whole list of pending
/// changes before and after each statement cost more the more was pending (a REPL session of 3,000
/// inserts took 103 s to run).
struct ChangeJournal {
    /// An object, or a row a delete rule takes that the context does not hold, and its pending change
    /// when first touched.
    struct Entry {
        let object: ModelObject?
        let ruleDeleted: (id: String, model: String)?
        let before: ObjectContext.Change?
    }

    private(set) var entries: [Entry] = []
    /// Open recordings; entries are kept only while there is one.
    private var depth = 0
    private var seenObjects: Set<ObjectIdentifier> = []
    private var seenRuleIDs: Set<String> = []

    var isRecording: Bool { depth > 0 }

    /// Starts a recording: its entries are the ones from the returned position on. Each object is
    /// entered again at its first touch after it, with its change as it stands then.
    mutating func begin() -> Int {
        depth += 1
        seenObjects = []
        seenRuleIDs = []
        return entries.count
    }

    mutating func end() {
        depth -= 1
        if depth == 0 { self = ChangeJournal() }
    }

    /// Whether `object` needs an entry (`enter`): a recording is open and this is its first touch since
    /// the recording began. Asked first, so that its change is worked out only for an entry.
    mutating func isFirstTouch(_ object: ModelObject) -> Bool {
        isRecording && seenObjects.insert(ObjectIdentifier(object)).inserted
    }

    mutating func enter(_ object: ModelObject, before: ObjectContext.Change?) {
        entries.append(Entry(object: object, ruleDeleted: nil, before: before))
    }

    mutating func touchRuleDeleted(_ id: String, model: String, before: ObjectContext.Change?) {
        guard isRecording, seenRuleIDs.insert(id).inserted else { return }
        entries.append(Entry(object: nil, ruleDeleted: (id, model), before: before))
    }
}
