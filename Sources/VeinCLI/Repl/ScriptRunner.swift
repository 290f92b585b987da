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
    /// Runs the lines' statements; `origin` names a file for the places in errors.
    static func run(_ lines: some Sequence<String>, in session: ReplSession, origin: String? = nil) throws {
        var accumulator = StatementAccumulator()
        var startLine = 0
        func execute(_ statement: String) throws {
            do {
                try session.execute(statement)
            } catch let error as ScriptError {
                throw error  // from a nested .read: its place is already the inner file's
            } catch {
                throw ScriptError(place: origin.map { "\($0):\(startLine)" } ?? "line \(startLine)", underlying: error)
            }
        }
        for (index, line) in lines.enumerated() {
            if accumulator.isEmpty { startLine = index + 1 }
            if let statement = accumulator.add(line) { try execute(statement) }
            if session.quitRequested { return }
        }
        if let statement = accumulator.finish() { try execute(statement) }
    }

    /// `vein repl STORE < script`: a script that ends with unsaved changes writes nothing and fails.
    static func runStandardInput(_ session: ReplSession) throws {
        try run(StandardInputLines(), in: session)
        let pending = session.context.changeCount
        guard pending == 0 else {
            throw CommandFailure("the script ended with \(ReplSession.count(pending, "unsaved change")); nothing was written",
                                 hint: "end the script with 'save' to write them, or 'rollback' to discard them", exitCode: .dataError)
        }
    }
}

/// Lines of standard input, read through the same buffer as a passphrase read before them.
struct StandardInputLines: Sequence, IteratorProtocol {
    mutating func next() -> String? { Swift.readLine(strippingNewline: true) }
}
