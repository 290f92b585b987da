import Foundation

/// What an object reaches its context through (by its layout, which holds this small box strongly): the
/// box holds the context weakly.
///
/// An object may outlive its context (SwiftData's `modelContext` is optional for the same reason), so
/// it cannot hold the context strongly; but a `weak` field in every object would give each of them a
/// Swift weak-reference side table, paid for on every retain and release of every fetched row. One
/// weak reference per context instead.
final class ContextHandle: @unchecked Sendable {
    /// Set once, right after the context is initialized; cleared by the runtime when it goes away.
    /// Weak loads are atomic, so any thread may read it.
    weak var context: ObjectContext?
    /// The context's lock (`ObjectContext.lock`), here so that an object reaches it without loading the
    /// context: a field read of a loaded column needs the lock and the object's own values only (the
    /// weak load and release were a tenth of a typed fetch that reads every field).
    let lock = NSRecursiveLock()
}
