import Foundation
import Vein

/// The REPL's dot-commands (SPEC §9): settings and views of the store that are not statements.
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
        DotCommand(name: ".mode", usage: ".mode table|json|jsonl|csv|line", help: "How results are shown.") { session, words, _ in
            guard let word = words.first else { return session.console.note("mode: \(session.format.rawValue)") }
            guard let format = ResultFormatter.Format(rawValue: word) else {
                throw usage("unknown mode '\(word)'" + Suggestion.hint(for: word, in: ResultFormatter.Format.allCases.map(\.rawValue), quote: "'"),
                            ".mode table|json|jsonl|csv|line")
            }
            session.format = format
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
        DotCommand(name: ".output", usage: ".output [FILE]", help: "Write results to FILE (made 0600); none: back to standard output.") { session, _, rest in
            try session.output.redirect(to: rest.isEmpty ? nil : rest)
        },
        DotCommand(name: ".explain", usage: ".explain STATEMENT", help: "The SQL and query plan a statement would run, and what is evaluated in memory.") { session, _, rest in
            guard !rest.isEmpty else { throw usage(".explain needs a statement", ".explain STATEMENT") }
            let lines = try QueryRunner(context: session.context).explain(rest)?.lines
                ?? ["no query: get reads one row by its id, insert reads nothing"]
            try session.output.write { emit in for line in lines { try emit(line) } }
        },
        DotCommand(name: ".sql", usage: ".sql SELECT …", help: "Run read-only SQL for what the language cannot say; anything that writes is refused.") { session, _, rest in
            guard !rest.isEmpty else { throw usage(".sql needs a SELECT statement", ".sql SELECT …") }
            let database = session.store.database
            let (columns, rows) = try Interrupt.whileRunning(on: database) { try database.readOnlyQuery(rest) }
            try session.output.write(paged: true) { emit in
                try ResultFormatter.write(columns: columns, rows: rows, format: session.format, style: session.style, emit: emit, note: session.console.note)
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
                "changes (what save would write), save, rollback.", ""]
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
