import Foundation
import Vein

enum ExportCommand {
    static let format: OptionKey<InterchangeFormat?> = .choice("format", value: "FORMAT",
        help: "json (one document, the default) or jsonl (a header line, then a record per line).", of: InterchangeFormat.self)
    static let output: OptionKey<String?> = .value("output", short: "o", value: "FILE",
                                                   help: "Write to FILE instead of standard output ('-' is standard output).", completion: .file)
    static let force: OptionKey<Bool> = .flag("force", help: "With -o: replace FILE even when it is not text, is a SQLite database or holds a key.")
    static let model: OptionKey<[String]> = .repeatable("model", value: "MODEL", help: "Export only this model (repeatable).")
    static let condition: OptionKey<String?> = .value("where", value: "EXPR", help: "Export only records matching this condition (with exactly one --model).")

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
            when complete, so FILE is whole or untouched; a new FILE is readable by its owner only (mode \
            0600), a replaced one keeps its mode, owner and group. A FILE that is not a regular file (a \
            device such as /dev/null, a FIFO) is written into, never replaced. On a terminal a progress bar \
            shows on standard error.

            FILE is never STORE, its -wal, -shm or -journal, or its key file, however it is named (a symbolic \
            or hard link to one of them is the same file): that is refused with exit 73 and nothing changes. \
            An existing FILE that is not UTF-8 text (an encrypted store looks like random bytes), is a SQLite \
            database, holds a raw key, or is the key file given with --key-file is replaced only with --force.
            """,
        arguments: [SharedOptions.store],
        options: [output, force, format, model, condition, SharedOptions.quiet] + SharedOptions.keyOptions,
        examples: [
            ("vein export blog.vein -o blog.json", "The whole store as one JSON document."),
            ("vein export blog.vein --format jsonl --model Post --where 'views > 100'", "Popular posts, a line each."),
            ("vein export blog.vein | vein import copy.vein - --create --schema blog.json5", "Copy a store's records into a new store."),
        ],
        run: run)

    static func run(_ invocation: Invocation) throws {
        let output = invocation[Self.output].flatMap { $0 == "-" ? nil : $0 }
        let force = invocation[Self.force]
        if force && output == nil {
            throw UsageError(message: "--force goes with -o FILE", command: invocation.commandPath)
        }
        let store = try SharedOptions.openStore(invocation, mode: .readOnly)
        if let output { try SharedOptions.writeGuard(invocation, store).check(output, force: force) }
        var exporter = StoreExporter(store: store)
        exporter.format = InterchangeOptions.format(invocation, path: output)
        exporter.models = invocation[model]
        exporter.condition = invocation[condition]
        let bar = ProgressBar(invocation)
        if let bar { exporter.progress = { bar.update($0) } }
        defer { bar?.finish() }
        let summary: InterchangeSummary
        if let output {
            summary = try StagedFile.write(to: output, mode: StoreExporter.fileMode) { try exporter.export(to: $0, name: output) }
        } else {
            summary = try exporter.export(to: STDOUT_FILENO)
        }
        bar?.finish()
        if !invocation.quiet {
            let counts = summary.records.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            invocation.console.note("exported \(Phrase.count(summary.total, "record"))\(counts.isEmpty ? "" : " (\(counts))")\(output.map { " to \($0)" } ?? "")")
        }
    }
}

/// What export and import share about their options.
enum InterchangeOptions {
    /// --format, or the file's extension (.jsonl, .ndjson), or json.
    static func format(_ invocation: Invocation, path: String?) -> InterchangeFormat {
        // The parser refuses a --format that names no InterchangeFormat.
        if let format = invocation[ExportCommand.format] { return format }
        if let path, path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") { return .jsonl }
        return .json
    }
}
