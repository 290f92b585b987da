/// The problems an import found, in a bounded space however many records have them: records with the
/// same problem (the same model, field and message) are one entry with their count and the first few of
/// them, so twenty identical failures read as one line that names where they are.
struct ImportProblems {
    /// How many of a group's records a message names.
    static let sampleCount = 5

    /// One kind of problem and the records that have it.
    private struct Group {
        let key: String
        /// The problem as said of a single record.
        let first: ImportError.Problem
        var samples = SampleList()
        /// The problem as said of `count` records, given the list of samples.
        let summary: (_ count: Int, _ samples: String) -> ImportError.Problem
    }

    private var groups: [Group] = []
    private var groupIndex: [String: Int] = [:]
    /// Records with a problem that counts towards `StoreImporter.problemLimit`.
    private(set) var limitedCount = 0

    var isEmpty: Bool { groups.isEmpty }

    /// The problems, one per group, in the order each was first met.
    var list: [ImportError.Problem] {
        groups.map { $0.samples.count == 1 ? $0.first : $0.summary($0.samples.count, $0.samples.text) }
    }

    /// A problem of the file as a whole (its header, its syntax, a relationship over many rows).
    mutating func add(_ location: String, _ message: String) {
        add(key: "\(location)\u{0}\(message)", first: ImportError.Problem(location: location, message: message), sample: location,
            limited: false) { _, _ in ImportError.Problem(location: location, message: message) }
    }

    /// A problem of one record: `subject` (`Post.title`, or `Post` when no field is concerned) gathers
    /// records with the same `message`; `sample` is what names the record in a summary (its line, or its
    /// line and id). Counts towards the problem limit unless `limited` is false.
    mutating func add(record location: String, subject: String, _ message: String, sample: String? = nil, limited: Bool = true) {
        add(key: "\(subject)\u{0}\(message)", first: ImportError.Problem(location: location, message: message),
            sample: sample ?? location, limited: limited) { count, samples in
            ImportError.Problem(location: subject, message: "\(count) records: \(message) (\(samples))")
        }
    }

    /// A problem of one record, worded differently for one record and for several.
    mutating func add(key: String, first: ImportError.Problem, sample: String, limited: Bool,
                      summary: @escaping (_ count: Int, _ samples: String) -> ImportError.Problem) {
        if limited { limitedCount += 1 }
        if let i = groupIndex[key] {
            groups[i].samples.add(sample)
            return
        }
        var group = Group(key: key, first: first, summary: summary)
        group.samples.add(sample)
        groupIndex[key] = groups.count
        groups.append(group)
    }
}

/// How many things there are and the first few distinct ones, in a fixed space: "a, b, c, …" names the
/// first `ImportProblems.sampleCount` and ends with "…" only when there are others.
struct SampleList {
    private(set) var count = 0
    private(set) var samples: [String] = []
    private var more = false

    mutating func add(_ sample: String) {
        count += 1
        guard !samples.contains(sample) else { return }
        if samples.count < ImportProblems.sampleCount { samples.append(sample) } else { more = true }
    }

    var text: String { samples.joined(separator: ", ") + (more ? ", …" : "") }
}
