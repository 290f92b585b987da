import Testing
import VeinCore

extension VeinCore.ModelContext {
    /// The failure an `insert` or `delete` recorded instead of throwing, as the next `save` throws it:
    /// the context has something to say before (`hasChanges`), and after it only its pending changes.
    func deferredFailure<E: Error>(_ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation) -> E? {
        #expect(hasChanges, "a recorded failure is something for save to report", sourceLocation: sourceLocation)
        let error = #expect(throws: type, sourceLocation: sourceLocation) { try save() }
        #expect(hasChanges == !engine.changes().isEmpty, "save reported the failure once", sourceLocation: sourceLocation)
        return error
    }
}
