/// The running state of one import: a writer per model, the lists read, counts, problems. Nothing in it
/// grows with the file: rows go to the store, lists to `ImportLinks`' scratch database, problems to
/// bounded groups.
struct ImportState {
    struct TooManyProblems: Error {}

    let store: Store
    let upsert: Bool
    var problems = ImportProblems()
    var remedy: ImportError.Remedy?
    var summary = InterchangeSummary()
    private var writers: [String: ModelWriter] = [:]
    /// The member holding each record's key, by the header's interchange version.
    private var keyMember = InterchangeVersion.keyMember(Int64(InterchangeVersion.current))!
    let links: ImportLinks

    init(store: Store, upsert: Bool, links: ImportLinks) {
        self.store = store
        self.upsert = upsert
        self.links = links
    }

    mutating func problem(_ location: String, _ message: String) {
        problems.add(location, message)
    }

    /// A problem of one record (of `model` when known), after which reading goes on until the limit.
    mutating func problemOrStop(_ location: String, model: String? = nil, field: String? = nil, _ message: String) throws {
        let subject = [model ?? "the file", field].compactMap { $0 }.joined(separator: ".")
        problems.add(record: location + (field.map { ".\($0)" } ?? ""), subject: subject, message, sample: location)
        if problems.limitedCount >= StoreImporter.problemLimit { throw TooManyProblems() }
    }

    /// The header must name this store's format, app and schema version; anything else is refused
    /// before a record is read (by throwing `TooManyProblems` once the problems are noted).
    mutating func checkHeader(_ header: JSONObject, location: String, allowing extra: [String]) throws {
        var found = false
        func problem(_ message: String) {
            self.problem(location, message)
            found = true
        }
        for key in header.keys where !["vein", "app", "schemaVersion"].contains(key) && !extra.contains(key) {
            problem("unknown key \"\(key)\" (expected vein, app, schemaVersion\(extra.isEmpty ? "" : ", models"))")
        }
        if case .int(let version)? = header["vein"], let member = InterchangeVersion.keyMember(version) {
            keyMember = member
        } else {
            problem("expected \"vein\": \(InterchangeVersion.current) (or 1), found \(header["vein"].map { JSONWriter.string($0) } ?? "nothing")")
        }
        let meta = store.meta
        if let app = header["app"]?.stringValue {
            if app != meta.app { problem("the file is for app \"\(app)\", the store belongs to \"\(meta.app)\"") }
        } else {
            problem("missing \"app\" (a string)")
        }
        if let version = header["schemaVersion"]?.stringValue {
            if version != meta.schemaVersion {
                problem("the file is at schema version \(version), the store at \(meta.schemaVersion)")
                remedy = .migrateFirst
            }
        } else {
            problem("missing \"schemaVersion\" (a string)")
        }
        if found { throw TooManyProblems() }
    }

    mutating func insert(_ record: JSONObject, model name: String, location: String) throws {
        if writers[name] == nil {
            guard let model = store.manifest.model(named: name) else {
                try problemOrStop(location, "unknown model \"\(name)\"" + Suggestion.hint(for: name, in: store.manifest.models.map(\.name)))
                return
            }
            do {
                writers[name] = try ModelWriter(model: model, manifest: store.manifest, database: store.database, upsert: upsert, keyMember: keyMember)
            } catch is ModelWriter.RowidsUsedUp {
                problem(name, "the table's rowids are used up (its largest is \(Int64.max)): no row can be added")
                throw TooManyProblems()
            }
        }
        let writer = writers[name]!
        let row: ModelWriter.Row
        switch writer.values(of: record) {
        case .failure(let failure):
            try problemOrStop(location, model: name, field: failure.field, failure.message)
            return
        case .success(let values):
            row = values
        }
        switch try writer.write(row) {
        case .inserted:
            summary.records[name, default: 0] += 1
        case .replaced:
            summary.records[name, default: 0] += 1
            summary.replaced[name, default: 0] += 1
        case .takenInStore:
            // Re-importing a file is one problem per model with a count, not one line per record (nor a
            // stop after twenty of them).
            problems.add(key: "taken\u{0}\(name)", first: ImportError.Problem(location: "\(location).\(keyMember)", message: "id \(row.id) is already in the store"),
                         sample: row.id, limited: false) { count, ids in
                ImportError.Problem(location: name, message: "\(count) records have ids already in the store (\(ids))")
            }
            remedy = .upsert
            return
        case .repeated:
            problems.add(key: "repeated\u{0}\(name)", first: ImportError.Problem(location: "\(location).\(keyMember)", message: "id \(row.id) is already used by an earlier record of the file"),
                         sample: row.id, limited: false) { count, ids in
                ImportError.Problem(location: name, message: "\(count) records repeat ids of earlier records of the file (\(ids))")
            }
            return
        case .refused(let message):
            try refused(row, message, model: name, location: location)
            return
        }
        try links.record(row)
    }

    /// A row another constraint refused: a unique field's value (or a compound constraint's values) held
    /// by another row, named by its record and id.
    private mutating func refused(_ row: ModelWriter.Row, _ message: String, model: String, location: String) throws {
        guard let violation = UniqueViolation(message: message), violation.model == model else {
            problems.add(record: location, subject: model, "\(model) \(row.id): \(message)", sample: location)
            if problems.limitedCount >= StoreImporter.problemLimit { throw TooManyProblems() }
            return
        }
        // A field's own constraint is located at the field; a compound one at the record or the model.
        let field = violation.fields.count == 1 ? ".\(violation.fields[0])" : ""
        let rule = violation.rule
        problems.add(key: "unique\u{0}\(model)\u{0}\(violation.fields.joined(separator: "\u{0}"))",
                     first: ImportError.Problem(location: "\(location)\(field)", message: "\(model) \(row.id): \(rule)"),
                     sample: "\(location) (\(row.id))", limited: true) { count, samples in
            ImportError.Problem(location: "\(model)\(field)", message: "\(count) records: \(rule): \(samples)")
        }
        if problems.limitedCount >= StoreImporter.problemLimit { throw TooManyProblems() }
    }

    /// After the last record: the lists, then every relationship of the store.
    mutating func finish() throws {
        guard problems.isEmpty else { return }
        let writers = self.writers
        try links.write(firstRowid: { writers[$0]?.firstRowid }, problems: &problems)
        guard problems.isEmpty, store.manifest.models.contains(where: { !$0.relationships.isEmpty }) else { return }
        for finding in try StoreVerifier.relationshipFindings(store.database, store.manifest) {
            let samples = finding.ids.joined(separator: ", ") + (finding.count > finding.ids.count ? ", …" : "")
            problem("\(finding.model).\(finding.field)", finding.problem(finding.count) + " (\(samples)); every id must be in the file or the store")
        }
    }
}
