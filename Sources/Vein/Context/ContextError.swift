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
    /// A property of a deleted or detached (rolled-back) object was set where no error can be thrown (a
    /// typed model's setter): the value was not changed, and the next save reports it.
    case writeToDeleted(model: String, id: String, field: String)
    /// The object's context no longer exists.
    case contextClosed(model: String, id: String)
    /// Another connection changed or deleted the row since this context read it; the save wrote nothing.
    case conflict(model: String, id: String)
    /// A pending insert that upserts meets, at save, a stored row through its unique `field`, and this
    /// context holds that row as an object of its own (one object per row): the save wrote nothing.
    case uniqueValueHeld(model: String, field: String, id: String)
    /// A new object's unique value is held by a row the same save deletes (itself or by a delete rule):
    /// updating that row would only delete it again.
    case uniqueValueOfDeletedRow(model: String, field: String, id: String)
    /// `interrupt()` stopped the fetch before it finished: it returned nothing, and the context serves the
    /// next one.
    case interrupted
}

extension ContextError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unknownModel(let m): return "no model '\(m)'"
        case .unknownField(let m, let f, let s): return "no field '\(f)' in \(m)" + (s.map { " (did you mean '\($0)'?)" } ?? "")
        case .typeMismatch(let m, let f, let expected, let found): return "\(m).\(f) takes \(expected), not \(found)"
        case .missingValue(let m, let f): return "\(m).\(f) needs a value (it is not optional and has no default)"
        case .danglingReference(let m, let f, let id): return "\(m).\(f): no row with id \(id)"
        case .deleteDenied(let m, let id, let r, let n):
            return "cannot delete \(m) \(id): its \(r) still names \(n) row\(n == 1 ? "" : "s") (delete rule deny)"
        case .constraintViolation(let text):
            // A unique value in the schema's words; any other constraint in SQLite's.
            return "the store refused the change: \(UniqueViolation(message: text)?.rule ?? text)"
        case .objectDeleted(let m, let id): return "\(m) \(id) is deleted"
        case .writeToDeleted(let m, let id, let f):
            return "\(m).\(f) was set on \(m) \(id) after it was deleted or rolled back; nothing was saved: "
                + "fetch the row again to change it"
        case .contextClosed(let m, let id): return "\(m) \(id) belongs to a context that no longer exists"
        case .conflict(let m, let id): return "another context or process changed \(m) \(id) after it was read; nothing was saved"
        case .uniqueValueHeld(let m, let f, let id):
            return "a new \(m) has the \(f) of \(m) \(id), which this context holds: change that \(m) instead of inserting another, "
                + "or give the new one another \(f); nothing was saved"
        case .uniqueValueOfDeletedRow(let m, let f, let id):
            return "a new \(m) has the \(f) of \(m) \(id), which this save deletes: save the delete first, then insert "
                + "the new one; nothing was saved"
        case .interrupted: return "the fetch was interrupted before it finished; nothing was returned"
        }
    }
}
