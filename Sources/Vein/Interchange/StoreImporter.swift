import Foundation

/// Reads the JSON of docs/interchange.md into a store, streaming, all or nothing (docs/interchange.md).
///
/// Each record is checked against the schema as it is read (unknown model or field, wrong type, missing
/// required field, enum value outside the set, malformed id) and written inside one transaction; ids
/// already present are an error unless `upsert`, and an id used by two records of the file is an error
/// either way. After the last record, lists are written and relationships are checked over the whole
/// store (an id in neither the file nor the store, inverse sides that disagree: `ImportLinks`) before
/// COMMIT. Any problem rolls everything back. Memory does not grow with the file: what must wait for the
/// last record waits on disk (`ImportScratch`), and problems are counted in bounded groups.
public struct StoreImporter {
    public let store: Store
    public var format: InterchangeFormat = .json
    public var upsert = false
    public var progress: ProgressHandler?
    /// How many records with problems to collect before giving up reading.
    package static let problemLimit = 20

    public init(store: Store) {
        self.store = store
    }

    /// Imports from `descriptor`; `file` names the input in messages. A failure to read it is a
    /// `FileError` (the input, not its JSON, is at fault).
    @discardableResult
    public func importRecords(from descriptor: Int32, file: String) throws -> InterchangeSummary {
        let links = try ImportLinks(database: store.database, manifest: store.manifest)
        defer { links.close() }
        var state = ImportState(store: store, upsert: upsert, links: links)
        let reader = JSONStreamReader(descriptor: descriptor)
        var stopped = false
        try store.transaction(.immediate) {
            do {
                switch format {
                case .jsonl: try readLines(reader, &state)
                case .json: try readDocument(reader, &state)
                }
            } catch let e as JSONSyntaxError {
                state.problem("line \(e.line), column \(e.column)", e.message)
            } catch is ImportState.TooManyProblems {
                stopped = true
            } catch let e as JSONStreamReader.ReadError {
                throw FileError.unreadable(file, reason: e.code == EISDIR ? "it is a directory" : String(cString: strerror(e.code)))
            }
            try state.finish()
            guard state.problems.isEmpty else {
                throw ImportError(file: file, problems: state.problems.list, remedy: state.remedy,
                                  stoppedEarly: stopped && state.problems.limitedCount >= Self.problemLimit)
            }
        }
        progress?(WorkProgress(done: state.summary.total, total: 0, label: "records"))
        return state.summary
    }

    private func readLines(_ reader: JSONStreamReader, _ state: inout ImportState) throws {
        guard let headerLine = try reader.readLine() else {
            state.problem("line 1", "empty input, expected a header line {\"vein\":\(InterchangeVersion.current),\"app\":…,\"schemaVersion\":…}")
            return
        }
        guard let header = try parseLine(headerLine, number: 1).objectValue else {
            state.problem("line 1", "expected a header object {\"vein\":\(InterchangeVersion.current),\"app\":…,\"schemaVersion\":…}")
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
