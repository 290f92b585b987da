import Foundation
import Vein

/// A statement of a script failed: its place (`line 3`, `more.vein:3`) and the error, reported as
/// `vein query` reports it, with the place in front.
struct ScriptError: Error {
    let place: String
    let underlying: Error
}

/// Script mode (standard input not a terminal, and `.read FILE`): no prompt, statements run in order,
/// the first error stops the script with its own exit status, like `sqlite3 -bail`.
enum ScriptRunner {
    /// Runs the statements of `lines`; `origin` names a file for the places in errors.
    static func run(_ lines: ScriptLines, in session: ReplSession, origin: String? = nil) throws {
        var accumulator = StatementAccumulator()
        var lineNumber = 0, startLine = 1
        func place() -> String { origin.map { "\($0):\(startLine)" } ?? "line \(startLine)" }
        func execute(_ statement: StatementAccumulator.Statement) throws {
            do {
                try session.execute(statement)
            } catch let error as ScriptError {
                throw error  // from a nested .read: its place is already the inner file's
            } catch {
                throw ScriptError(place: place(), underlying: error)
            }
        }
        while true {
            if accumulator.isEmpty { startLine = lineNumber + 1 }
            let line: String?
            let statement: StatementAccumulator.Statement?
            do {
                line = try lines.next(limit: accumulator.remainingBytes - (accumulator.isEmpty ? 0 : 1), name: origin ?? "standard input")
                statement = try line.flatMap { try accumulator.add($0) }
            } catch {
                throw ScriptError(place: place(), underlying: error)
            }
            guard line != nil else { break }
            lineNumber += 1
            if let statement { try execute(statement) }
            if session.quitRequested { return }
        }
        if let statement = accumulator.finish() { try execute(statement) }
    }

    /// `vein repl STORE < script`: a script that ends with unsaved changes writes nothing and fails.
    static func runStandardInput(_ session: ReplSession) throws {
        try run(.standardInput, in: session)
        let pending = session.context.changeCount
        guard pending == 0 else {
            throw CommandFailure("the script ended with \(Phrase.count(pending, "unsaved change")); nothing was written",
                                 hint: "end the script with 'save' to write them, or 'rollback' to discard them", exitCode: .dataError)
        }
    }
}
