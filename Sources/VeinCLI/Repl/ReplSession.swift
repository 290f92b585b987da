import Foundation
import Vein

/// One REPL session on an open store: runs statements through `QueryRunner` on one `ObjectContext`, so
/// writes stay pending until `save` (docs/repl.md), and keeps the settings the dot-commands change.
final class ReplSession {
    let store: Store
    let context: ObjectContext
    let console: Console
    let output: ReplOutput
    let readOnly: Bool
    /// Set when the store is in the format before this vein's: it was opened read-only, and each write
    /// says why and what to run.
    var upgradeNeeded: StoreError?
    let interactive: Bool
    /// The store's file name, for the prompt.
    let name: String
    /// What `.output` must not write over: the store, its companions, its key files.
    let writeGuard: WriteGuard

    var format: ResultFormatter.Format = .table
    var timer = false
    var headers = true
    var columnWidths: [Int] = []
    /// `.mode csv --safe`: CSV text cells that start a formula are written as text (`CSVField`).
    var csvSafe = false
    /// Ids of the last result, for completion after `#id("`.
    private(set) var recentIDs: [String] = []
    /// `.quit` was given.
    var quitRequested = false
    /// The files `.read` is reading, outermost first (a script that reads itself would never end).
    var readChain: [ReadFile] = []

    /// A file being read by `.read`: its name as given, and its identity.
    struct ReadFile {
        let name: String
        let device: UInt64
        let inode: UInt64
    }

    /// How deep `.read` may nest.
    static let maxReadDepth = 16

    static let recentIDLimit = 1000
    /// On a terminal, table widths come from the first rows, as the first page needs them.
    static let widthSample = 1000

    init(store: Store, console: Console, readOnly: Bool, interactive: Bool, writeGuard: WriteGuard) {
        self.store = store
        self.writeGuard = writeGuard
        self.context = ObjectContext(store: store)
        self.console = console
        self.output = ReplOutput(console: console, interactive: interactive)
        self.readOnly = readOnly
        self.interactive = interactive
        self.name = URL(fileURLWithPath: store.path).lastPathComponent
    }

    var manifest: SchemaManifest { context.manifest }
    var hasUnsavedChanges: Bool { context.hasChanges }

    /// Runs one complete statement, session word (`changes`, `save`, `rollback`) or dot-command.
    func execute(_ text: String) throws {
        try execute(StatementAccumulator.Statement(text: text, parsed: nil))
    }

    /// `execute` of a statement as the accumulator gave it, parsed if it was one.
    func execute(_ statement: StatementAccumulator.Statement) throws {
        let started = DispatchTime.now()
        defer {
            if timer { console.note(String(format: "time: %.3f s", Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)) }
        }
        let trimmed = StatementAccumulator.trimmed(statement.text)
        if trimmed.hasPrefix(".") { return try DotCommands.run(String(trimmed), in: self) }
        switch trimmed {
        case "changes": return try showChanges(all: false)
        case "save": return try save()
        case "rollback": return rollback()
        default:
            if Self.isChangesAll(String(trimmed)) { return try showChanges(all: true) }
            let parsed = statement.parsed ?? Result { () throws(ExpressionError) in try QueryParser.parse(statement.text) }
            try run(try parsed.get(), text: statement.text)
        }
    }

    private func run(_ statement: QueryStatement, text: String) throws {
        let isWrite = statement.isWrite
        if let upgradeNeeded, isWrite { throw upgradeNeeded }
        if readOnly, isWrite {
            throw CommandFailure("the store is open read-only (--read-only): a write is not run", exitCode: .usage)
        }
        func runStatement() throws -> QueryResult {
            try Interrupt.whileRunning(on: context) { try QueryRunner(context: context).run(statement, source: text) }
        }
        // A script stops at its first error, writing nothing: only a session needs to know what a failed
        // statement left pending.
        let result = try interactive && isWrite ? context.recordingChanges { record in
            do {
                return try runStatement()
            } catch {
                // A delete denied on a later row, say: what it did before stays pending, and the person should know.
                if !context.changes(since: record).isEmpty {
                    console.note("the statement stopped part-way; what it changed before is pending: 'changes' lists it, 'rollback' discards every pending change")
                }
                throw error
            }
        } : try runStatement()
        switch result {
        case .objects(let model, let objects):
            recentIDs = objects.prefix(Self.recentIDLimit).map(\.id)
            try output.writeResult(paged: true) { emit in
                try ResultFormatter.write(objects, model: model, format: format, style: style, emit: emit)
            }
        case .count(let n):
            try output.write { emit in try emit(ResultFormatter.count(n, format: format)) }
        case .changes(let changes):
            recentIDs = changes.map(\.id)
            if try writeChanges(changes, all: false) { console.note("'changes --all' lists every pending change") }
        }
    }

    var style: ResultFormatter.Style {
        ResultFormatter.Style(width: output.width, headers: headers, columnWidths: columnWidths, color: output.useColor,
                              widthSample: output.isTerminal ? Self.widthSample : nil, csvSafe: csvSafe)
    }

    /// `changes --all`, with any spaces between the words.
    static func isChangesAll(_ text: String) -> Bool {
        guard text.hasPrefix("changes"), let gap = text.dropFirst("changes".count).first, gap.isWhitespace else { return false }
        return text.dropFirst("changes".count).trimmingCharacters(in: .whitespaces) == "--all"
    }

    /// `changes`: every pending change, summarised past a screenful on a terminal unless `all`.
    private func showChanges(all: Bool) throws {
        let changes = context.changes()
        let summarized = try writeChanges(changes, all: all)
        let them = changes.count == 1 ? "it" : "them"
        console.note(changes.isEmpty ? "no unsaved changes"
                     : "\(Phrase.count(changes.count, "unsaved change")): 'save' writes \(them), 'rollback' discards \(them)"
                     + (summarized ? "; 'changes --all' lists each" : ""))
    }

    /// Writes changes, summarised past a screenful unless `all`; returns whether they were.
    private func writeChanges(_ changes: [ObjectContext.Change], all: Bool) throws -> Bool {
        var summarized = false
        try output.write { emit in
            summarized = try ResultFormatter.write(changes, format: format, summarizingPast: all ? nil : output.screenful, emit: emit)
        }
        return summarized
    }

    func save() throws {
        if let upgradeNeeded { throw upgradeNeeded }
        if readOnly { throw CommandFailure("the store is open read-only (--read-only): there is nothing it can save", exitCode: .usage) }
        let count = context.changeCount
        try context.save()
        console.note(count == 0 ? "nothing to save" : "saved \(Phrase.count(count, "change"))")
    }

    private func rollback() {
        let count = context.changeCount
        context.rollback()
        console.note(count == 0 ? "nothing to roll back" : "discarded \(Phrase.count(count, "change"))")
    }
}
