import Foundation
import Vein

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
        ] + SharedOptions.keyOptions + [SharedOptions.weakPassphrase],
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
        let descriptor = try FileInput.openForStreaming(file)
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
            invocation.console.note("imported \(Phrase.count(summary.total, "record"))\(counts.isEmpty ? "" : " (\(counts))")")
        }
    }
}
