/// Why the context refused an operation. Each names the model and field involved.
public enum ContextError: Error, Equatable, Sendable {
    case unknownModel(String)
    case unknownField(model: String, field: String, suggestion: String?)
    case typeMismatch(model: String, field: String, expected: String, found: String)
    case missingValue(model: String, field: String)
    /// A relationship names an id that is in neither the context nor the store.
    case danglingReference(model: String, field: String, id: String)
    /// A `deny` delete rule refused the delete.
    case deleteDenied(model: String, id: String, relationship: String, count: Int)
    /// A UNIQUE constraint or another rule of the store refused the save.
    case constraintViolation(String)
    case objectDeleted(model: String, id: String)
    /// The object's context no longer exists.
    case contextClosed(model: String, id: String)
    /// Another connection changed or deleted the row since this context read it; the save wrote nothing.
    case conflict(model: String, id: String)
}
