import Foundation
import Vein

/// The REPL's dot-commands (docs/repl.md): settings and views of the store that are not statements.
struct DotCommand: Sendable {
    let name: String
    let usage: String
    let help: String
    /// The session, the words after the name, and the text after the name as written.
    let run: @Sendable (ReplSession, [String], String) throws -> Void
}

enum DotCommands {
    static let all: [DotCommand] = [
        DotCommand(name: ".models", usage: ".models", help: "List the models (sqlite3's .tables).") { session, _, _ in
            try session.output.write { emit in for m in session.manifest.models { try emit(m.name) } }
        },
        DotCommand(name: ".schema", usage: ".schema [MODEL]", help: "Show the fields and relationships of every model, or of one.") { session, words, _ in
            let models = try words.first.map { [try model($0, in: session)] } ?? session.manifest.models
            try session.output.write { emit in for line in SchemaDescription.lines(models) { try emit(line) } }
        },
        DotCommand(name: ".mode", usage: ".mode table|json|jsonl|csv [--safe]|line",
                   help: "How results are shown; csv --safe writes text that starts with = + - @ as '-prefixed text.") { session, words, _ in
            let usageText = ".mode table|json|jsonl|csv [--safe]|line"
            guard let word = words.first else {
                return session.console.note("mode: \(session.format.rawValue)" + (session.format == .csv && session.csvSafe ? " --safe" : ""))
            }
            guard let format = ResultFormatter.Format(rawValue: word) else {
                throw usage("unknown mode '\(word)'" + Suggestion.hint(for: word, in: ResultFormatter.Format.allCases.map(\.rawValue), quote: "'"),
                            usageText)
            }
            let options = words.dropFirst()
            guard options.isEmpty || (format == .csv && options == ["--safe"]) else {
                throw usage("'\(options.joined(separator: " "))' is not an option of .mode \(word)", usageText)
            }
            session.format = format
            session.csvSafe = !options.isEmpty
        },
        DotCommand(name: ".timer", usage: ".timer on|off", help: "Show how long each statement took.") { session, words, _ in
            session.timer = try onOff(words, ".timer on|off")
        },
        DotCommand(name: ".headers", usage: ".headers on|off", help: "Show the header line of tables and csv.") { session, words, _ in
            session.headers = try onOff(words, ".headers on|off")
        },
        DotCommand(name: ".width", usage: ".width [N …]", help: "Column widths of tables, in order (0: fitted); none resets them.") { session, words, _ in
            session.columnWidths = try words.map { word in
                guard let n = Int(word), n >= 0 else { throw usage("a width is a number of characters, not '\(word)'", ".width [N …]") }
                return n
            }
        },
        DotCommand(name: ".read", usage: ".read FILE", help: "Run the statements in FILE (a file or a pipe); the first error stops it.") { session, _, rest in
            guard !rest.isEmpty else { throw usage(".read needs a file", ".read FILE") }
            try ScriptFile.read(rest, in: session)
        },
        DotCommand(name: ".output", usage: ".output [--force] [FILE]",
                   help: "Write results to FILE (made 0600; never the store or its key file); none: back to standard output.") { session, _, rest in
            let (force, path) = outputArguments(rest)
            if force && path == nil { throw usage(".output --force needs a file", ".output [--force] [FILE]") }
            try session.output.redirect(to: path, force: force, guarding: session.writeGuard)
        },
        DotCommand(name: ".explain", usage: ".explain [--all] STATEMENT",
                   help: "The SQL and query plan a statement would run, and what is evaluated in memory; long lists of arguments are shortened on a terminal unless --all.") { session, words, rest in
            let all = words.first == "--all"
            let statement = all ? String(rest.dropFirst("--all".count)).trimmingCharacters(in: .whitespaces) : rest
            guard !statement.isEmpty else { throw usage(".explain needs a statement", ".explain [--all] STATEMENT") }
            let shortened = all ? nil : session.output.screenful.map { _ in FetchExplanation.shownArguments }
            let lines = try QueryRunner(context: session.context).explain(statement)?.lines(listingAtMost: shortened)
                ?? ["no query: get reads one row by its id, insert reads nothing"]
            try session.output.write { emit in for line in lines { try emit(line) } }
        },
        DotCommand(name: ".sql", usage: ".sql SELECT …", help: "Run read-only SQL for what the language cannot say; anything that writes is refused.") { session, _, rest in
            guard !rest.isEmpty else { throw usage(".sql needs a SELECT statement", ".sql SELECT …") }
            let database = session.store.database
            let (columns, rows) = try Interrupt.whileRunning(on: database) { try database.readOnlyQuery(rest) }
            try session.output.writeResult(paged: true) { emit in
                try ResultFormatter.write(columns: columns, rows: rows, format: session.format, style: session.style, emit: emit)
            }
        },
        DotCommand(name: ".help", usage: ".help", help: "This list.") { session, _, _ in
            try session.output.write { emit in try helpLines.forEach(emit) }
        },
        DotCommand(name: ".quit", usage: ".quit", help: "Leave (also Ctrl-D); unsaved changes are asked about first.") { session, _, _ in
            session.quitRequested = true
        },
    ]

    static var names: [String] { all.map(\.name) }

    static var helpLines: [String] {
        let width = all.map(\.usage.count).max() ?? 0
        return ["Statements: Model [where …] [sort …] [limit N] [offset N], count, get, insert, update, delete;",
                "changes (what save would write; past a screenful a summary, 'changes --all' every one), save, rollback.", ""]
            + all.map { $0.usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.help }
    }

    static func run(_ text: String, in session: ReplSession) throws {
        let name = String(text.prefix { !$0.isWhitespace })
        let rest = text.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        guard let command = all.first(where: { $0.name == name }) else {
            throw CommandFailure("unknown command '\(name)'" + Suggestion.hint(for: name, in: names, quote: "'"),
                                 hint: "'.help' lists the commands", exitCode: .usage)
        }
        try command.run(session, rest.split(whereSeparator: \.isWhitespace).map(String.init), rest)
    }

    static func usage(_ message: String, _ usage: String) -> CommandFailure {
        CommandFailure(message, hint: "usage: \(usage)", exitCode: .usage)
    }

    /// `.output`'s words: `--force` first, then the file name as written (it may hold spaces).
    static func outputArguments(_ rest: String) -> (force: Bool, path: String?) {
        var path = Substring(rest)
        let force = path == "--force" || path.hasPrefix("--force ") || path.hasPrefix("--force\t")
        if force { path = path.dropFirst("--force".count).drop { $0.isWhitespace } }
        return (force, path.isEmpty ? nil : String(path))
    }

    static func onOff(_ words: [String], _ usageText: String) throws -> Bool {
        switch words.first {
        case "on": return true
        case "off": return false
        default: throw usage("expected on or off", usageText)
        }
    }

    static func model(_ name: String, in session: ReplSession) throws -> ModelSchema {
        guard let model = session.manifest.model(named: name) else {
            throw CommandFailure("no model '\(name)'" + Suggestion.hint(for: name, in: session.manifest.models.map(\.name), quote: "'"),
                                 exitCode: .dataError)
        }
        return model
    }
}
