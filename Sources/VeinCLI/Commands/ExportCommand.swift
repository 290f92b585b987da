import Foundation
import Vein

enum ExportCommand {
    static let format = OptionSpec("format", value: "FORMAT", help: "json (one document, the default) or jsonl (a header line, then a record per line).",
                                   completion: .choices(InterchangeFormat.allCases.map(\.rawValue)))

    static let spec: CommandSpec = CommandSpec(
        name: "export",
        abstract: "Write a store's records as JSON or JSON Lines",
        discussion: """
            Writes every record of STORE (or of the models given with --model, or those matching --where) \
            to standard output or to FILE, streaming: memory stays flat however large the store. Records come \
            in schema order, then id order; every field is included, lazy ones too; a to-one relationship is an \
            id, a to-many an array of ids; dates are ISO 8601 UTC with microseconds, data is base64. The same \
            store always gives the same bytes, and 'vein import' of the output into a new store, exported \
            again, gives them once more.

            With -o FILE the output is written next to FILE under a temporary name and renamed into place \
            when complete, so FILE is whole or untouched. On a terminal a progress bar shows on standard error.
            """,
        arguments: [SharedOptions.storeArgument],
        options: [
            OptionSpec("output", short: "o", value: "FILE", help: "Write to FILE instead of standard output ('-' is standard output).", completion: .file),
            format,
            OptionSpec("model", value: "MODEL", help: "Export only this model (repeatable).", repeatable: true),
            OptionSpec("where", value: "EXPR", help: "Export only records matching this condition (with exactly one --model)."),
            SharedOptions.quiet,
        ] + SharedOptions.keyOptions,
        examples: [
            ("vein export blog.vein -o blog.json", "The whole store as one JSON document."),
            ("vein export blog.vein --format jsonl --model Post --where 'views > 100'", "Popular posts, a line each."),
            ("vein export blog.vein | vein import copy.vein - --create --schema blog.json5", "Copy a store's records into a new store."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let output = invocation.arguments.value("output").flatMap { $0 == "-" ? nil : $0 }
        let store = try SharedOptions.openStore(invocation)
        var exporter = StoreExporter(store: store)
        exporter.format = try InterchangeOptions.format(invocation, path: output)
        exporter.models = invocation.arguments.allValues("model")
        exporter.condition = invocation.arguments.value("where")
        if exporter.condition != nil && exporter.models.count != 1 {
            throw UsageError(message: "--where needs exactly one --model (the condition is written against one model's fields)",
                             command: invocation.commandPath)
        }
        let bar = ProgressBar(invocation)
        if let bar { exporter.progress = { bar.update($0) } }
        defer { bar?.finish() }
        let summary: InterchangeSummary
        if let output {
            summary = try AtomicOutput.write(to: output) { try exporter.export(to: $0) }
        } else {
            summary = try exporter.export(to: STDOUT_FILENO)
        }
        bar?.finish()
        if !invocation.quiet {
            let counts = summary.records.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            invocation.console.note("exported \(summary.total) record\(summary.total == 1 ? "" : "s")\(counts.isEmpty ? "" : " (\(counts))")\(output.map { " to \($0)" } ?? "")")
        }
    }
}

enum ImportCommand {
    static let spec: CommandSpec = CommandSpec(
        name: "import",
        abstract: "Read JSON or JSON Lines records into a store, all or nothing",
        discussion: """
            Reads the records of FILE ('-' for standard input) into STORE in one transaction, streaming. \
            Everything is checked against the store's schema as it is read: the header's app and schema \
            version (a file at another version is refused with a hint to migrate first), unknown models and \
            fields, wrong types, missing required fields, enum values outside the set, malformed ids, ids \
            already present (unless --upsert, which replaces them), and after the last record every \
            relationship (an id must be in the file or the store; both sides of an inverse pair must agree). \
            Each problem names the line (jsonl) or the JSON path (json), the field and what was expected; up \
            to \(StoreImporter.problemLimit) are reported. On any problem nothing is written.

            With --create --schema MANIFEST, STORE is created first (with the key options of 'vein create') \
            and appears only if the whole import succeeds.
            """,
        arguments: [SharedOptions.storeArgument, ArgumentSpec("FILE", help: "The records to read ('-' for standard input).", completion: .file)],
        options: [
            ExportCommand.format,
            OptionSpec("upsert", help: "Replace records whose id is already in the store."),
            OptionSpec("create", help: "Create STORE from --schema first; it appears only if the import succeeds."),
            OptionSpec("schema", value: "MANIFEST", help: "The schema manifest for --create.", completion: .fileWithExtensions(["json", "json5"])),
            OptionSpec("plaintext", help: "With --create: do not encrypt the new store."),
            SharedOptions.json, SharedOptions.quiet,
        ] + SharedOptions.keyOptions,
        examples: [
            ("vein import blog.vein posts.jsonl", "Add the records of posts.jsonl."),
            ("vein import blog.vein fixes.json --upsert", "Replace records by id."),
            ("vein import new.vein blog.json --create --schema blog.json5 --key-file new.key", "A new store holding the records."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let args = invocation.arguments
        let file = invocation.required("FILE")
        let format = try InterchangeOptions.format(invocation, path: file == "-" ? nil : file)
        let descriptor: Int32
        if file == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw errno == ENOENT ? FileError.notFound(file) : FileError.unreadable(file, reason: String(cString: strerror(errno)))
            }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let bar = ProgressBar(invocation)
        defer { bar?.finish() }
        func importInto(_ store: Store) throws -> InterchangeSummary {
            var importer = StoreImporter(store: store)
            importer.format = format
            importer.upsert = args.flag("upsert")
            if let bar { importer.progress = { bar.update($0) } }
            return try importer.importRecords(from: descriptor, file: file == "-" ? "standard input" : file)
        }
        var summary = InterchangeSummary()
        if args.flag("create") {
            guard let schema = args.value("schema") else {
                throw UsageError(message: "--create needs --schema MANIFEST", command: invocation.commandPath)
            }
            let manifest = try SchemaManifest.load(path: schema)
            let protection: StoreCreator.Protection = args.flag("plaintext") ? .plaintext : .encrypted(SharedOptions.keyOptions(invocation))
            _ = try StoreCreator.create(at: invocation.required("STORE"), manifest: manifest, protection: protection) { store in
                summary = try importInto(store)
            }
        } else {
            if args.value("schema") != nil || args.flag("plaintext") {
                throw UsageError(message: "--schema and --plaintext go with --create", command: invocation.commandPath)
            }
            summary = try importInto(try SharedOptions.openStore(invocation))
        }
        bar?.finish()
        if invocation.wantsJSON {
            invocation.console.outJSON(.object(JSONObject([
                ("store", .string(invocation.required("STORE"))), ("records", .int(Int64(summary.total))),
                ("models", .object(JSONObject(summary.records.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int(Int64($0.value))) }))),
            ])))
        } else if !invocation.quiet {
            let counts = summary.records.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            invocation.console.note("imported \(summary.total) record\(summary.total == 1 ? "" : "s")\(counts.isEmpty ? "" : " (\(counts))")")
        }
    }
}

/// What export and import share about their options.
enum InterchangeOptions {
    /// --format, or the file's extension (.jsonl, .ndjson), or json.
    static func format(_ invocation: Invocation, path: String?) throws -> InterchangeFormat {
        if let text = invocation.arguments.value("format") {
            guard let format = InterchangeFormat(rawValue: text) else {
                throw UsageError(message: "--format expects json or jsonl, found '\(text)'", command: invocation.commandPath)
            }
            return format
        }
        if let path, path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") { return .jsonl }
        return .json
    }
}

/// A file written under a temporary name next to it and renamed into place when complete: readers see
/// the old file or the whole new one, never a part.
enum AtomicOutput {
    static func write<T>(to path: String, _ body: (Int32) throws -> T) throws -> T {
        let temporary = path + ".partial-\(ULID.make())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError.cannotWrite(path, reason: String(cString: strerror(errno))) }
        do {
            let result = try body(fd)
            guard fsync(fd) == 0, close(fd) == 0 else { throw FileError.cannotWrite(path, reason: String(cString: strerror(errno))) }
            guard rename(temporary, path) == 0 else { throw FileError.cannotWrite(path, reason: String(cString: strerror(errno))) }
            return result
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
    }
}
