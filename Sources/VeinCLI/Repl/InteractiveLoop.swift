import Foundation
import Vein

/// The REPL on a terminal: prompts (`blog.vein> `, `blog.vein*> ` while changes are unsaved, `...> ` while
/// a statement continues), errors reported without leaving, the unsaved-changes question on the way out.
struct InteractiveLoop {
    let session: ReplSession
    let historyFile: String?
    /// Throws when `historyFile` may not be written (`WriteGuard`): run again just before it is, since the
    /// file checked before the first prompt may have been replaced since (by a link to the store, say).
    var checkHistoryFile: (String) throws -> Void = { _ in }

    func run() throws {
        WindowSize.install()
        let editor = LineEditor { text in
            Completer(manifest: session.manifest, recentIDs: session.recentIDs).complete(text)
        }
        if let historyFile { editor.loadHistory(historyFile) }
        readStatements(editor)
        // A history that cannot be written fails the session (73 or 74), as any other file vein could not
        // write does: `vein repl … && next` must not go on as if everything was kept.
        if let historyFile {
            try checkHistoryFile(historyFile)
            try editor.saveHistory(historyFile)
        }
    }

    /// Prompts and runs statements until the person leaves; every error is reported and the session goes on.
    private func readStatements(_ editor: LineEditor) {
        session.console.note("vein \(VeinVersion.current): \(session.name)"
            + (session.store.encryption.isEncrypted ? ", encrypted" : ", plaintext") + (session.readOnly ? ", read-only" : "")
            + (historyFile == nil ? ", history in memory only" : "") + ". '.help' lists the commands.")
        var accumulator = StatementAccumulator()
        while true {
            let prompt = accumulator.isEmpty ? mainPrompt : String(repeating: " ", count: max(0, DisplayWidth.of(mainPrompt) - 5)) + "...> "
            LineEditor.continuedText = accumulator.isEmpty ? "" : accumulator.text + "\n"
            switch editor.readLine(prompt: prompt) {
            case .interrupted:
                accumulator.cancel()
            case .endOfInput:
                if !accumulator.isEmpty { accumulator.cancel(); continue }
                if confirmQuit(editor) { return }
            case .line(let line):
                let statement: StatementAccumulator.Statement
                do {
                    guard let complete = try accumulator.add(line) else { continue }
                    statement = complete
                } catch {
                    report(error)
                    continue
                }
                editor.addHistory(statement.text)
                do {
                    try session.execute(statement)
                } catch {
                    report(error)
                    offerRollback(after: error, editor)
                }
                if session.quitRequested {
                    session.quitRequested = false
                    if confirmQuit(editor) { return }
                }
            }
        }
    }

    private var mainPrompt: String { session.name + (session.hasUnsavedChanges ? "*" : "") + "> " }

    /// Whether to leave: at once without unsaved changes; otherwise the person chooses.
    private func confirmQuit(_ editor: LineEditor) -> Bool {
        let pending = session.context.changeCount
        guard pending > 0 else { return true }
        while true {
            // Short: a prompt wider than the terminal leaves readline's idea of the screen behind.
            switch editor.readLine(prompt: "\(Phrase.count(pending, "unsaved change")): quit without saving? [y/n/save] ") {
            case .line(let answer):
                switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
                case "y", "yes": return true
                case "n", "no", "": return false
                case "save", "s":
                    do { try session.save(); return true } catch {
                        report(error)
                        offerRollback(after: error, editor)
                        return false
                    }
                default: session.console.note("y: quit, discarding them; n: stay; save: save them, then quit")
                }
            case .interrupted: return false
            // Ctrl-D stays; a terminal that hung up will never answer: leave, writing nothing.
            case .endOfInput: return editor.inputClosed
            }
        }
    }

    /// An error, as `vein query` reports it; the session goes on. Interrupted statements say so.
    private func report(_ error: Error) {
        // Ctrl-C: a fetch says so as the context's error, raw SQL as SQLite's.
        if error as? ContextError == .interrupted || (error as? DatabaseError)?.isInterrupted == true {
            session.console.note("interrupted")
            return
        }
        let report = ErrorReporting.report(error, in: .session)
        for (i, message) in report.messages.enumerated() {
            session.console.error(message, hint: i == report.messages.count - 1 ? report.hint : nil)
        }
    }

    /// After a conflict the pending changes, computed from rows another process has changed since, can
    /// never be saved: the hint says to roll back and repeat, and here the person may roll back at once
    /// (or keep them, to look at with 'changes'). A script never asks: it stops at the error.
    private func offerRollback(after error: Error, _ editor: LineEditor) {
        guard case .conflict = error as? ContextError, session.hasUnsavedChanges else { return }
        if case .line(let answer) = editor.readLine(prompt: "roll back now? [y/N] "),
           ["y", "yes"].contains(StatementAccumulator.trimmed(answer).lowercased()) {
            do { try session.execute("rollback") } catch { report(error) }
        }
    }
}
