import Foundation
import Synchronization
import Vein

/// SwiftData's spellings of what a context does, for code written against SwiftData's documentation.
extension ModelContext {
    /// A new context of `container` (its own connection), as `container.newContext()`: SwiftData's
    /// `ModelContext(container)`, the per-call or per-thread context. The container knows it, so its
    /// `close()` closes it too.
    public convenience init(_ container: ModelContainer) {
        self.init(container.newEngineContext(), appSchema: container.manifest, models: container.models,
                  refusedSaves: container.refusedSaves)
    }

    /// SwiftData's call to apply pending changes to the object graph, which does nothing in Vein: every
    /// change (an insert, a delete and its rules, an assignment and its inverse) is applied to the objects
    /// when it is made, and `hasChanges` says whether any waits for `save`. It is here so that code calling
    /// it compiles.
    public func processPendingChanges() {}

    /// SwiftData's autosave switch, false by default. Vein never saves on its own, whatever it holds: not
    /// after an insert, not at intervals, not when the container closes or the process exits; `save()` and
    /// `transaction { }` are when changes are written. It is here so that code setting it compiles.
    public var autosaveEnabled: Bool {
        get { autosave.load(ordering: .relaxed) }
        set { autosave.store(newValue, ordering: .relaxed) }
    }

    /// Runs `block`, then saves, in one write transaction: what the block reads decides what it writes (ARCHITECTURE.md I4), and
    /// no other context or process writes in between. A throw (from the block or the save) writes nothing
    /// and leaves the context's unsaved changes as they are (`rollback()` discards them).
    public func transaction(block: () throws -> Void) throws {
        try checkSchema()
        try checkSavesAllowed()
        try engine.transaction(.immediate) {
            try block()
            try engine.save()
        }
    }

    /// Deletes every `T` that `predicate` selects (every `T` without one), with the delete rules, as
    /// `delete` of each would; `save` writes it. It throws, as SwiftData's does, where `delete` defers its
    /// failure: a `deny` stops it there, the objects before it deleted (pending). SwiftData's signature:
    /// `includeSubclasses` has no meaning for Vein's final model classes.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        for object in try fetch(FetchDescriptor<T>(predicate: predicate)) { try deleteNow(object) }
    }

    /// Runs `block` on each object `descriptor` selects, in its order, fetching `batchSize` objects at a
    /// time so that a large result is never held whole: the selection is the ids the fetch finds when it
    /// starts, and each batch's objects are released before the next batch is read. Without
    /// `allowEscapingMutations`, a block that leaves unsaved changes stops the enumeration with an error
    /// (save inside the block, or allow it); SwiftData decides the same way.
    public func enumerate<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
                                              block: (T) throws -> Void) throws {
        guard batchSize > 0 else { throw EnumerationError.batchSizeNotPositive(batchSize) }
        let ids = try fetchKeys(descriptor)
        var start = ids.startIndex
        while start < ids.endIndex {
            let end = ids.index(start, offsetBy: batchSize, limitedBy: ids.endIndex) ?? ids.endIndex
            try enumerateBatch(Array(ids[start..<end]), of: T.self, allowEscapingMutations: allowEscapingMutations, block: block)
            start = end
        }
    }

    /// One batch of `enumerate`: its objects are held only for the batch.
    private func enumerateBatch<T: PersistentModel>(_ ids: [String], of type: T.Type, allowEscapingMutations: Bool, block: (T) throws -> Void) throws {
        let hadChanges = hasChanges
        var batch = ObjectFetch(model: T.modelName)
        batch.restrictedTo = ids  // and in their order
        let objects = T.instances(try engine.fetch(batch))
        for object in objects {
            try block(object)
            if !allowEscapingMutations, !hadChanges, hasChanges { throw EnumerationError.escapingMutations(model: T.modelName) }
        }
    }
}

/// Why `enumerate(_:batchSize:allowEscapingMutations:block:)` stopped.
public enum EnumerationError: Error, Equatable, Sendable, CustomStringConvertible {
    case batchSizeNotPositive(Int)
    /// The block left changes unsaved, and `allowEscapingMutations` was false.
    case escapingMutations(model: String)

    public var description: String {
        switch self {
        case .batchSizeNotPositive(let size):
            return "enumerate: a batch size of \(size); give at least 1"
        case .escapingMutations(let model):
            return "enumerate: the block left changes to \(model) unsaved; save them in the block, or pass allowEscapingMutations: true"
        }
    }
}
