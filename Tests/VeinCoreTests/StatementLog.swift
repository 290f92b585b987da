import Foundation
@testable import Vein
import VeinCore

/// The statements a context runs while it records (SQLite's statement trace): what tests count to prove
/// what a fetch reads, rather than timing it.
final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    /// Starts recording `context`'s statements, for the rest of the context's life.
    init(_ context: VeinCore.ModelContext) throws {
        try context.engine.traceStatements { [self] sql in lock.withLock { recorded.append(sql) } }
    }

    /// The statements run since the last call, reads of the store's change counter left out.
    func take() -> [String] {
        lock.withLock {
            defer { recorded = [] }
            return recorded.filter { !$0.hasPrefix("PRAGMA") }
        }
    }
}
