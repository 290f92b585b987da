/// Why a per-model convenience (`Post.upsert`, `post.delete()`, `post.attachments(where:sort:)`) refused.
public enum ModelConvenienceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An instance method that needs the instance's row, on an instance never inserted (or fetched).
    case notInAContext(model: String, method: String)
    /// `upsert` on a model without a `@Unique` field: nothing says which row is the same one.
    case noUniqueField(model: String)
    /// `upsert` of an instance that is already another context's row.
    case inAnotherContext(model: String, id: String)
    /// `upsert` of an instance whose context no longer exists (closed, or released).
    case contextGone(model: String, id: String)
    /// `upsert` of an instance this context deleted.
    case deleted(model: String, id: String)
    /// `upsert` or `insert` whose unique value a stored row still holds, deleted in this context and not saved.
    case valueHeldByUnsavedDelete(model: String, field: String, id: String)
    /// `upsert` of an instance pointing at an object of another context, or a deleted one.
    case targetOutsideContext(model: String, relationship: String, target: String, id: String)
    /// `upsert` of an instance whose unique fields name two different rows.
    case matchesTwoRows(model: String, field: String, id: String, otherField: String, otherID: String)
    /// A key path that is not a stored to-many relationship of the model (a computed property).
    case notAToManyRelationship(model: String)
    /// A convenience given no context while no `ModelContainer.default` is set.
    case noDefaultContainer(method: String)

    public var description: String {
        switch self {
        case .notInAContext(let model, let method):
            return "\(method): this \(model) is in no context; insert it (or fetch it) first"
        case .noUniqueField(let model):
            return "upsert: \(model) has no @Unique field to find the existing row by; mark the field that identifies a \(model) @Unique, or use insert"
        case .inAnotherContext(let model, let id):
            return "upsert: this \(model) (\(id)) belongs to another context; upsert a new instance, or fetch the row in this context"
        case .contextGone(let model, let id):
            return "upsert: this \(model) (\(id)) belongs to a context that no longer exists; upsert a new instance, or fetch the row in this context"
        case .deleted(let model, let id):
            return "upsert: this \(model) (\(id)) is deleted in this context; upsert a new instance (or rollback to undo the delete)"
        case .valueHeldByUnsavedDelete(let model, let field, let id):
            return "\(model) row \(id) still holds this \(field) in the store; this context deleted it without saving, "
                + "and a save writes new rows before deletes: save first, then insert or upsert the new one"
        case .targetOutsideContext(let model, let relationship, let target, let id):
            return "upsert: this \(model)'s \(relationship) names \(target) \(id), which is deleted or another context's; "
                + "point it at an object of this context"
        case .matchesTwoRows(let model, let field, let id, let otherField, let otherID):
            return "upsert: this \(model)'s \(field) is the one of row \(id) and its \(otherField) the one of row \(otherID); "
                + "one instance cannot be both rows: change or delete one of them first"
        case .notAToManyRelationship(let model):
            return "related(_:where:sort:): the key path is not a stored to-many relationship of \(model)"
        case .noDefaultContainer(let method):
            return "\(method): no context given and no default container; set ModelContainer.default = container "
                + "where the app makes its container, or pass modelContext:"
        }
    }
}
