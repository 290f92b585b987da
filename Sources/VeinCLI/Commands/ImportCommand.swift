import Foundation
import Vein

enum ImportCommand {
    static let file: ArgumentKey<String> = .required("FILE", help: "The records to read ('-' for standard input).", completion: .file)
    static let upsert: OptionKey<Bool> = .flag("upsert", help: "Replace records whose id is already in the store (each record whole).")
    static let create: OptionKey<Bool> = .flag("create", help: "Create STORE from --schema first; it appears only if the import succeeds.")
    static let schema: OptionKey<String?> = .value("schema", value: "MANIFEST", help: "The schema manifest for --create.",
                                                   completion: .fileWithExtensions(["json", "json5"]))
    static let plaintext: OptionKey<Bool> = .flag("plaintext", help: "With --create: do not encrypt the new store.")

    static let spec: CommandSpec = CommandSpec(
        name: "import",
        abstract: "Read JSON or JSON Lines records into a store, all or nothing",
        discussion: """
            Reads the records of FILE ('-' for standard input) into STORE in one transaction, streaming: \
            memory stays flat however long the file (what must wait for the last record, the members of \
            lists, waits in a temporary file, encrypted when the store is). Everything is checked against \
            the store's schema as it is read: the header's app and schema version (a file at another version \
            is refused with a hint to migrate first), unknown models and fields, wrong types, missing required \
            fields, enum values outside the set, malformed ids, unique values another record holds, an id \
            used by two records of the file, ids already present (unless --upsert), and after the last record \
            every relationship (an id must be in the file or the store; both sides of an inverse pair must \
            agree). Each problem names the line (jsonl) or the JSON path (json), the field, the record's id \
            where it has one, and what was expected; records with the same problem are one line with their \
            count. Reading stops after \(StoreImporter.problemLimit) records with problems. On any problem \
            nothing is written.

            --upsert replaces each record whose id is in the store, whole: fields and lists the record leaves \
            out become their defaults or empty, and a row keeps its place in its owner's list while it names \
            the same owner. A list must still hold every row whose to-one names its owner: a post whose attachments \
            leave out an attachment that names it is refused (import the attachment with another post, or \
            none, in the same file). The summary says how many records were inserted and how many replaced.

            With --create --schema MANIFEST, STORE is created first (with the key options of 'vein create') \
            and appears only if the whole import succeeds.

            The summary is written after the commit. If it cannot be written (standard output closed, a full \
            disk), vein says that the records are in the store and exits with status 74: do not import the \
            file again.
            """,
        arguments: [SharedOptions.store, file],
        options: [ExportCommand.format, upsert, create, schema, plaintext, SharedOptions.json, SharedOptions.quiet]
            + SharedOptions.keyOptions + [SharedOptions.weakPassphrase],
        examples: [
            ("vein import blog.vein posts.jsonl", "Add the records of posts.jsonl."),
            ("vein import blog.vein fixes.json --upsert", "Replace records by id."),
            ("vein import new.vein blog.json --create --schema blog.json5 --key-file new.key", "A new store holding the records."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let file = invocation[Self.file]
        let format = InterchangeOptions.format(invocation, path: file == "-" ? nil : file)
        let descriptor = try FileInput.openForStreaming(file)
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let bar = ProgressBar(invocation)
        defer { bar?.finish() }
        func importInto(_ store: Store) throws -> InterchangeSummary {
            // After the store opened: a JSON file in the store's place is the mistake to report first.
            try FileInput.requireTextStart(descriptor, path: file)
            var importer = StoreImporter(store: store)
            importer.format = format
            importer.upsert = invocation[upsert]
            if let bar { importer.progress = { bar.update($0) } }
            return try importer.importRecords(from: descriptor, file: file == "-" ? "standard input" : file)
        }
        var summary = InterchangeSummary()
        if invocation[create] {
            guard let schema = invocation[Self.schema] else {
                throw UsageError(message: "--create needs --schema MANIFEST", command: invocation.commandPath)
            }
            let manifest = try SchemaManifest.load(path: schema)
            let protection: StoreCreator.Protection = invocation[plaintext] ? .plaintext : .encrypted(SharedOptions.keyOptions(invocation))
            _ = try StoreCreator.create(at: invocation[SharedOptions.store], manifest: manifest, protection: protection) { store in
                summary = try importInto(store)
            }
        } else {
            if invocation[schema] != nil || invocation[plaintext] {
                throw UsageError(message: "--schema and --plaintext go with --create", command: invocation.commandPath)
            }
            summary = try importInto(try SharedOptions.openStore(invocation))
        }
        bar?.finish()
        try report(summary, invocation)
    }

    /// The summary, written after the commit: when it cannot be written, the message says that the
    /// records are in (a retry would only find them there), and the status is 74.
    static func report(_ summary: InterchangeSummary, _ invocation: Invocation) throws {
        let store = invocation[SharedOptions.store]
        let upsert = invocation[Self.upsert]
        let console = invocation.console
        do {
            if invocation.wantsJSON {
                try console.outChecked(JSONWriter.string(.object(JSONObject([
                    ("store", .string(store)), ("records", .int(Int64(summary.total))),
                    ("inserted", .int(Int64(summary.totalInserted))), ("replaced", .int(Int64(summary.totalReplaced))),
                    ("models", .object(JSONObject(summary.records.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int(Int64($0.value))) }))),
                ])), pretty: true))
            } else if !invocation.quiet {
                let counts = summary.records.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                let replaced = upsert ? ": \(summary.totalInserted) inserted, \(summary.totalReplaced) replaced" : ""
                try console.noteChecked("imported \(Phrase.count(summary.total, "record"))\(counts.isEmpty ? "" : " (\(counts))")\(replaced)")
            }
        } catch FileError.outputClosed {
            // The reader went away (`| head`): nobody reads the summary; the import stands, as with `cat`.
        } catch {
            throw CommandFailure("the import is done: \(Phrase.count(summary.total, "record", "are")) in \(store), "
                                 + "but its summary could not be written (\(error))",
                                 hint: "do not import the file again: its records are in the store already", exitCode: .ioError)
        }
    }
}
