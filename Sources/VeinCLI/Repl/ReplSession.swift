import Foundation
import Vein

/// One REPL session on an open store: runs statements through `QueryRunner` on one `ModelContext`, so
/// writes stay pending until `save` (SPEC §9), and keeps the settings the dot-commands change.
final class ReplSession {
    let store: Store
    let context: ModelContext
    let console: Console
    let output: ReplOutput
    let readOnly: Bool
    let interactive: Bool
    /// The store's file name, for the prompt.
    let name: String

    var format: ResultFormatter.Format = .table
    var timer = false
    var headers = true
    var columnWidths: [Int] = []
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

    init(store: Store, console: Console, readOnly: Bool, interactive: Bool) {
        self.store = store
        self.context = ModelContext(store: store)
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
        case "changes": return try showChanges()
        case "save": return try save()
        case "rollback": return rollback()
        default:
            let parsed = statement.parsed ?? Result { () throws(ExpressionError) in try QueryParser.parse(statement.text) }
            try run(try parsed.get(), text: statement.text)
        }
    }

    private func run(_ statement: QueryStatement, text: String) throws {
        let isWrite = statement.isWrite
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
            try output.write(paged: true) { emit in
                try ResultFormatter.write(objects, model: model, format: format, style: style, emit: emit, note: console.note)
            }
        case .count(let n):
            try output.write { emit in try emit(ResultFormatter.count(n, format: format)) }
        case .changes(let changes):
            recentIDs = changes.map(\.id)
            try output.write { emit in try ResultFormatter.write(changes, format: format, emit: emit) }
        }
    }

    var style: ResultFormatter.Style {
        ResultFormatter.Style(width: output.width, headers: headers, columnWidths: columnWidths, color: output.useColor,
                              widthSample: output.isTerminal ? Self.widthSample : nil)
    }

    private func showChanges() throws {
        let changes = context.changes()
        try output.write { emit in try ResultFormatter.write(changes, format: format, emit: emit) }
        console.note(changes.isEmpty ? "no unsaved changes" : "\(Self.count(changes.count, "unsaved change")): 'save' writes them, 'rollback' discards them")
    }

    func save() throws {
        if readOnly { throw CommandFailure("the store is open read-only (--read-only): there is nothing it can save", exitCode: .usage) }
        let count = context.changeCount
        try context.save()
        console.note(count == 0 ? "nothing to save" : "saved \(Self.count(count, "change"))")
    }

    private func rollback() {
        let count = context.changeCount
        context.rollback()
        console.note(count == 0 ? "nothing to roll back" : "discarded \(Self.count(count, "change"))")
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
