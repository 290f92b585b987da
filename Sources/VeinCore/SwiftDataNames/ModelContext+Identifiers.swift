import Vein

/// SwiftData's lookups of a row by its `PersistentIdentifier` (`persistentModelID`, `fetchIdentifiers`).
extension ModelContext {
    /// The instance of the row `id` names: the one this context holds, or one made from the store.
    /// Unlike SwiftData's, which returns an object that fails later, it throws when it cannot give one:
    /// `ModelLookupError.noSuchRow` (deleted, never saved by any context, or deleted in this one),
    /// `ModelLookupError.unknownModel` (a model this context's schema does not have).
    public func model(for id: PersistentIdentifier) throws -> any PersistentModel {
        try checkSchema()
        guard let type = modelTypes[id.entityName] else { throw ModelLookupError.unknownModel(id.entityName) }
        guard let object = try engine.object(id.entityName, id: id.key) else { throw ModelLookupError.noSuchRow(id) }
        return type.instance(object)
    }

    /// The instance of the row `id` names when this context holds it (inserted, fetched, or read through
    /// a relationship, and not deleted), without reading the store; nil otherwise, or when `T` is not
    /// the model `id` names.
    public func registeredModel<T: PersistentModel>(for id: PersistentIdentifier) -> T? {
        guard id.entityName == T.modelName, let object = engine.registeredObject(id.entityName, id: id.key) else { return nil }
        return T.instance(object)
    }
}

/// Why `model(for:)` could not give an instance.
public enum ModelLookupError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchRow(PersistentIdentifier)
    case unknownModel(String)

    public var description: String {
        switch self {
        case .noSuchRow(let id):
            return "model(for:): no row \(id.key) of \(id.entityName) in the store or this context (deleted, or not saved yet "
                + "by the context that inserted it); fetch again to find what is there"
        case .unknownModel(let name):
            return "model(for:): '\(name)' is not a model of this context's schema; look it up in a context of the container "
                + "whose schema lists it"
        }
    }
}
