import Foundation

/// Reads SPEC §7's JSON into a store, streaming, all or nothing (SPEC §7).
///
/// Each record is checked against the schema as it is read (unknown model or field, wrong type, missing
/// required field, enum value outside the set, malformed id) and written inside one transaction; ids
/// already present are an error unless `upsert`. After the last record, relationships are checked over
/// the whole store (an id in neither the file nor the store, inverse sides that disagree) before COMMIT.
/// Any problem rolls everything back.
public struct StoreImporter {
    public let store: Store
    public var format: InterchangeFormat = .json
    public var upsert = false
    public var progress: ProgressHandler?
    /// How many problems to collect before giving up reading.
    public static let problemLimit = 20

    public init(store: Store) {
        self.store = store
    }

    /// Imports from `descriptor`; `file` names the input in messages.
    @discardableResult
    public func importRecords(from descriptor: Int32, file: String) throws -> InterchangeSummary {
        var state = ImportState(store: store, upsert: upsert, file: file)
        let reader = JSONStreamReader(descriptor: descriptor)
        try store.transaction(.immediate) {
            do {
                switch format {
                case .jsonl: try readLines(reader, &state)
                case .json: try readDocument(reader, &state)
                }
            } catch let e as JSONSyntaxError {
                state.problem("line \(e.line), column \(e.column)", e.message)
            } catch is ImportState.TooManyProblems {}
            state.reportTakenIDs()
            if state.problems.isEmpty { try state.writeLinks() }
            if state.problems.isEmpty { try state.checkRelationships() }
            guard state.problems.isEmpty else {
                throw ImportError(file: file, problems: state.problems, remedy: state.remedy)
            }
        }
        progress?(WorkProgress(done: state.summary.total, total: 0, label: "records"))
        return state.summary
    }

    private func readLines(_ reader: JSONStreamReader, _ state: inout ImportState) throws {
        guard let headerLine = try reader.readLine() else {
            state.problem("line 1", "empty input, expected a header line {\"vein\":1,\"app\":…,\"schemaVersion\":…}")
            return
        }
        guard let header = try parseLine(headerLine, number: 1).objectValue else {
            state.problem("line 1", "expected a header object {\"vein\":1,\"app\":…,\"schemaVersion\":…}")
            return
        }
        try state.checkHeader(header, location: "line 1", allowing: [])
        var number = 1
        while let bytes = try reader.readLine() {
            number += 1
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let location = "line \(number)"
            let value: JSONValue
            do { value = try parseLine(bytes, number: number) } catch let e as JSONSyntaxError {
                try state.problemOrStop(location, "column \(e.column): \(e.message)")
                continue
            }
            guard var object = value.objectValue else {
                try state.problemOrStop(location, "expected a record object, found \(value.kindName)")
                continue
            }
            guard let model = object["model"]?.stringValue else {
                try state.problemOrStop(location, "missing \"model\" (the model the record belongs to)")
                continue
            }
            object["model"] = nil
            try state.insert(object, model: model, location: location)
            if state.summary.total % 10_000 == 0 { progress?(WorkProgress(done: state.summary.total, total: 0, label: "records")) }
        }
    }

    private func parseLine(_ bytes: [UInt8], number: Int) throws -> JSONValue {
        do { return try JSONParser.parse(bytes) } catch let e as JSONSyntaxError {
            throw JSONSyntaxError(line: number, column: e.column, message: e.message)
        }
    }

    /// `{"vein":…,"app":…,"schemaVersion":…,"models":{"Post":[{…},…],…}}`, one record parsed at a time.
    private func readDocument(_ reader: JSONStreamReader, _ state: inout ImportState) throws {
        try reader.expect(UInt8(ascii: "{"), "'{' (the document is one object)")
        var header = JSONObject()
        var sawModels = false
        if try !reader.consume(UInt8(ascii: "}")) {
            repeat {
                guard case .string(let key) = try reader.readValue() else { throw reader.error("expected a key in quotes") }
                try reader.expect(UInt8(ascii: ":"), "':' after \"\(key)\"")
                if key == "models" {
                    try state.checkHeader(header, location: "the header", allowing: ["models"])
                    sawModels = true
                    try readModels(reader, &state)
                } else {
                    header[key] = try reader.readValue()
                }
            } while try reader.consume(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"), "',' or '}'")
        }
        if try reader.peek() != nil { throw reader.error("unexpected \(JSONStreamReader.describe(try reader.peek()!)) after the document") }
        if !sawModels {
            try state.checkHeader(header, location: "the header", allowing: [])
            state.problem("the header", "missing \"models\" (an object of model names and arrays of records)")
        }
    }

    private func readModels(_ reader: JSONStreamReader, _ state: inout ImportState) throws {
        try reader.expect(UInt8(ascii: "{"), "'{' (models is an object of model names and arrays of records)")
        if try reader.consume(UInt8(ascii: "}")) { return }
        repeat {
            guard case .string(let model) = try reader.readValue() else { throw reader.error("expected a model name in quotes") }
            try reader.expect(UInt8(ascii: ":"), "':' after \"\(model)\"")
            try reader.expect(UInt8(ascii: "["), "'[' (the records of \(model))")
            var i = 0
            if try !reader.consume(UInt8(ascii: "]")) {
                repeat {
                    let location = "models.\(model)[\(i)] (line \(reader.line))"
                    let value = try reader.readValue()
                    if let object = value.objectValue {
                        try state.insert(object, model: model, location: location)
                    } else {
                        try state.problemOrStop(location, "expected a record object, found \(value.kindName)")
                    }
                    i += 1
                    if state.summary.total % 10_000 == 0 { progress?(WorkProgress(done: state.summary.total, total: 0, label: "records")) }
                } while try reader.consume(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "]"), "',' or ']' in the records of \(model)")
            }
        } while try reader.consume(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "}"), "',' or '}' in models")
    }
}

/// The running state of one import: prepared statements per model, counts, problems.
private struct ImportState {
    struct TooManyProblems: Error {}

    let store: Store
    let upsert: Bool
    let file: String
    var problems: [ImportError.Problem] = []
    var remedy: ImportError.Remedy?
    /// Records whose id is taken, per model in the order met: re-importing a file is one problem per
    /// model with a count, not one line per record (nor a stop after 20 of them).
    private var takenIDs: [(model: String, location: String, ids: [String], count: Int)] = []
    var summary = InterchangeSummary()
    private var writers: [String: ModelWriter] = [:]
    /// To-many arrays read, written after the last record (their members may come later in the file).
    private var links: [(storage: RelationshipStorage, owner: String, members: [String])] = []

    init(store: Store, upsert: Bool, file: String) {
        self.store = store
        self.upsert = upsert
        self.file = file
    }

    mutating func problem(_ location: String, _ message: String) {
        problems.append(ImportError.Problem(location: location, message: message))
    }

    mutating func problemOrStop(_ location: String, _ message: String) throws {
        problem(location, message)
        if problems.count >= StoreImporter.problemLimit { throw TooManyProblems() }
    }

    /// The header must name this store's format, app and schema version; anything else is refused
    /// before a record is read (by throwing `TooManyProblems` once the problems are noted).
    mutating func checkHeader(_ header: JSONObject, location: String, allowing extra: [String]) throws {
        let before = problems.count
        for key in header.keys where !["vein", "app", "schemaVersion"].contains(key) && !extra.contains(key) {
            problem(location, "unknown key \"\(key)\" (expected vein, app, schemaVersion\(extra.isEmpty ? "" : ", models"))")
        }
        if header["vein"] != .int(1) { problem(location, "expected \"vein\": 1, found \(header["vein"].map { JSONWriter.string($0) } ?? "nothing")") }
        let meta = store.meta
        if let app = header["app"]?.stringValue {
            if app != meta.app { problem(location, "the file is for app \"\(app)\", the store belongs to \"\(meta.app)\"") }
        } else {
            problem(location, "missing \"app\" (a string)")
        }
        if let version = header["schemaVersion"]?.stringValue {
            if version != meta.schemaVersion {
                problem(location, "the file is at schema version \(version), the store at \(meta.schemaVersion)")
                remedy = .migrateFirst
            }
        } else {
            problem(location, "missing \"schemaVersion\" (a string)")
        }
        if problems.count > before { throw TooManyProblems() }
    }

    mutating func insert(_ record: JSONObject, model name: String, location: String) throws {
        if writers[name] == nil {
            guard let model = store.manifest.model(named: name) else {
                try problemOrStop(location, "unknown model \"\(name)\"" + Suggestion.hint(for: name, in: store.manifest.models.map(\.name)))
                return
            }
            writers[name] = try ModelWriter(model: model, manifest: store.manifest, database: store.database, upsert: upsert)
        }
        let writer = writers[name]!
        switch writer.values(of: record) {
        case .failure(let failure):
            try problemOrStop("\(location)\(failure.field.map { ".\($0)" } ?? "")", failure.message)
            return
        case .success(let (values, lists)):
            do {
                try writer.write(values)
                for (storage, members) in lists { links.append((storage, values[0].string ?? "", members)) }
            } catch let e as DatabaseError where e.isConstraintViolation {
                if e.message.contains("\(name).id") {
                    let id = values[0].string ?? ""
                    if let i = takenIDs.firstIndex(where: { $0.model == name }) {
                        takenIDs[i].count += 1
                        if takenIDs[i].ids.count < 5 { takenIDs[i].ids.append(id) }
                    } else {
                        takenIDs.append((name, "\(location).id", [id], 1))
                    }
                    remedy = .upsert
                } else {
                    try problemOrStop(location, e.message)
                }
                return
            }
        }
        summary.records[name, default: 0] += 1
    }

    mutating func reportTakenIDs() {
        for taken in takenIDs {
            if taken.count == 1 {
                problem(taken.location, "id \(taken.ids[0]) is already in the store or earlier in the file")
            } else {
                let samples = taken.ids.joined(separator: ", ") + (taken.count > taken.ids.count ? ", …" : "")
                problem(taken.model, "\(Phrase.count(taken.count, "id", "are")) already in the store or earlier in the file (\(samples))")
            }
        }
        takenIDs = []
    }

    /// After the last record, the to-many arrays (store format 2, `RelationshipStorage`): a link table
    /// gets the owner's links in array order; a to-many kept through its inverse's column gets the
    /// members' positions, and each member must name the owner back. Members added to an owner that is
    /// not in the file go at the end of its list.
    mutating func writeLinks() throws {
        let db = store.database
        var ownersInFile: [RelationshipStorage: Set<String>] = [:]
        var notNamingBack: [RelationshipStorage: [String]] = [:]
        for (storage, owner, members) in links {
            switch storage.kind {
            case .reverseColumn:
                ownersInFile[storage, default: []].insert(owner)
                let place = try db.cachedStatement(storage.placeSQL)
                for (k, member) in members.enumerated() {
                    defer { place.reset() }
                    try place.bind([.text(owner), .text(member), .integer(Int64(k + 1))])
                    try place.step()
                    if db.changes == 0 { notNamingBack[storage, default: []].append(owner) }
                }
            case .linkTable where storage.isCanonical:
                try db.execute("DELETE FROM \(SQL.quoteIdentifier(storage.linkTable!)) WHERE \"owner\" = ?", [.text(owner)])
                let place = try db.cachedStatement(storage.placeSQL)
                for (k, member) in members.enumerated() {
                    defer { place.reset() }
                    try place.bind([.text(owner), .text(member), .integer(Int64(k + 1))])
                    try place.step()
                }
            default:
                // The other side of a many-to-many: its pairs are links of the canonical side (at its end
                // when that side's record did not list them; both sides share the one table).
                for member in members {
                    let position = try db.scalar(storage.maxPositionSQL, [.text(member)])?.int64 ?? 0
                    try db.execute("INSERT OR IGNORE INTO \(SQL.quoteIdentifier(storage.linkTable!)) (\"owner\", \"target\", \"position\") VALUES (?, ?, ?)",
                                   [.text(member), .text(owner), .integer(position + 1)])
                }
            }
        }
        links = []
        for (storage, owners) in notNamingBack {
            let inverse = "\(storage.target).\(storage.inverseColumn!)"
            let ids = Array(Set(owners)).sorted()
            problem("\(storage.model).\(storage.name)", "\(Phrase.rows(ids.count, "are")) not listed back by \(inverse) (\(ids.prefix(5).joined(separator: ", "))\(ids.count > 5 ? ", …" : ""))")
        }
        // Members whose to-one names an owner but no position: listed by no array of their owner.
        for storage in RelationshipStorage.all(in: store.manifest) where storage.kind == .reverseColumn {
            let q = SQL.quoteIdentifier
            let rows = try db.rows("SELECT \"id\", \(q(storage.inverseColumn!)) FROM \(q(storage.target)) "
                                   + "WHERE \(q(storage.inverseColumn!)) IS NOT NULL AND \(q(storage.positionColumn!)) IS NULL ORDER BY \"id\"")
            var unlisted: [String] = []
            for row in rows {
                let (member, owner) = (row[0].string ?? "", row[1].string ?? "")
                if ownersInFile[storage]?.contains(owner) == true {
                    unlisted.append(member)
                } else {
                    let position = try db.scalar(storage.maxPositionSQL, [.text(owner)])?.int64 ?? 0
                    try db.execute(storage.placeSQL, [.text(owner), .text(member), .integer(position + 1)])
                }
            }
            if !unlisted.isEmpty {
                let name = "\(storage.model).\(storage.name)"
                problem("\(storage.target).\(storage.inverseColumn!)", "\(Phrase.rows(unlisted.count, "are")) not listed back by \(name) (\(unlisted.prefix(5).joined(separator: ", "))\(unlisted.count > 5 ? ", …" : ""))")
            }
        }
    }

    /// After the last record: every id a relationship holds names a row, and inverse sides agree.
    mutating func checkRelationships() throws {
        guard store.manifest.models.contains(where: { !$0.relationships.isEmpty }) else { return }
        for finding in try StoreVerifier.relationshipFindings(store.database, store.manifest) {
            let samples = finding.ids.prefix(5).joined(separator: ", ")
            problem("\(finding.model).\(finding.field)", finding.problem(finding.ids.count)
                    + " (\(samples)\(finding.ids.count > 5 ? ", …" : "")); every id must be in the file or the store")
        }
    }
}

/// Turns records of one model into a row and writes it with one prepared statement.
private struct ModelWriter {
    let model: ModelSchema
    let statement: Statement
    /// Fields, then relationships, as `ModelSchema.columnNames`.
    let columns: [String]
    let position: [String: Int]

    struct Failure: Error {
        let field: String?
        let message: String
    }

    /// How each relationship is stored, in `model.relationships` order.
    let storages: [RelationshipStorage]
    /// Each field's codec, in `model.fields` order, with its default in stored form (nil when none).
    let codecs: [FieldCodec]
    let defaults: [DatabaseValue?]

    init(model: ModelSchema, manifest: SchemaManifest, database: Database, upsert: Bool) throws {
        self.model = model
        columns = model.columnNames
        position = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        let codecs = model.fields.map(\.codec)
        self.codecs = codecs
        defaults = zip(model.fields, codecs).map { field, codec in field.defaultValue.flatMap { try? codec.value(fromJSON: $0).databaseValue } }
        storages = model.relationships.map { RelationshipStorage(model: model, relationship: $0, in: manifest) }
        // To-many arrays are written as links after the last record; a to-one's position column is
        // written from its owner's array.
        let names = (["id"] + model.fields.map(\.name) + model.relationships.filter { !$0.isToMany }.map(\.name)).map(SQL.quoteIdentifier)
        statement = try database.makeStatement("INSERT \(upsert ? "OR REPLACE " : "")INTO \(SQL.quoteIdentifier(model.name)) ("
            + names.joined(separator: ", ") + ") VALUES (" + names.map { _ in "?" }.joined(separator: ", ") + ")")
    }

    func values(of record: JSONObject) -> Result<([DatabaseValue], [(RelationshipStorage, [String])]), Failure> {
        // One pass over the record's members, each placed by column position (one hash per member).
        var given = [JSONValue?](repeating: nil, count: columns.count)
        var id: JSONValue?
        for member in record {
            if member.key == "id" { id = member.value; continue }
            guard let i = position[member.key] else {
                return .failure(Failure(field: member.key, message: "no field \"\(member.key)\" in \(model.name)" + Suggestion.hint(for: member.key, in: columns)))
            }
            given[i] = member.value
        }
        guard let idText = id?.stringValue, Self.isCanonicalULID(idText) else {
            return .failure(Failure(field: "id", message: "expected a ULID (26 characters of Crockford base32), found "
                                    + (id.map { JSONWriter.string($0) } ?? "nothing")))
        }
        var values: [DatabaseValue] = [.text(idText)]
        values.reserveCapacity(columns.count + 1)
        for (i, field) in model.fields.enumerated() {
            guard let json = given[i] else {
                if let v = defaults[i] { values.append(v); continue }
                if field.isOptional { values.append(.null); continue }
                return .failure(Failure(field: field.name, message: "missing a value for the required field (\(field.type.rawValue))"))
            }
            do {
                values.append(try codecs[i].value(fromJSON: json).databaseValue)
            } catch {
                return .failure(Failure(field: field.name, message: "expected \(error.expectation)"))
            }
        }
        var lists: [(RelationshipStorage, [String])] = []
        for (k, rel) in model.relationships.enumerated() {
            switch (given[model.fields.count + k], rel.isToMany) {
            case (nil, false), (.null?, false): values.append(.null)
            case (nil, true): lists.append((storages[k], []))
            case (.string(let target)?, false) where Self.isCanonicalULID(target): values.append(.text(target))
            case (.array(let items)?, true) where items.allSatisfy({ $0.stringValue.map(Self.isCanonicalULID) ?? false }):
                let ids = items.compactMap(\.stringValue)
                if Set(ids).count != ids.count {
                    return .failure(Failure(field: rel.name, message: "lists the same id twice"))
                }
                lists.append((storages[k], ids))
            case (let other?, _):
                return .failure(Failure(field: rel.name, message: rel.isToMany
                    ? "expected an array of ids of \(rel.target) rows, found \(JSONWriter.string(other).prefix(40))"
                    : "expected the id of a \(rel.target) row or null, found \(JSONWriter.string(other).prefix(40))"))
            }
        }
        return .success((values, lists))
    }

    func write(_ values: [DatabaseValue]) throws {
        defer { statement.reset() }
        try statement.bind(values)
        try statement.step()
    }

    static func isCanonicalULID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { ULID(canonicalUTF8: $0) != nil }
    }
}
