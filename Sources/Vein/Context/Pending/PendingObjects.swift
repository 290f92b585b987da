/// Objects with a pending change of one kind (changed, or deleted), by id, and the ids of each model's:
/// whether a model has any, and which, is what every fetch asks (`hasPendingChanges(for:)`, the narrowing
/// of its SQL), and it costs what that model has pending, not what the whole context has.
struct PendingObjects: ExpressibleByDictionaryLiteral {
    private(set) var byID: [String: ModelObject] = [:]
    private var idsByModel: [String: Set<String>] = [:]

    init(dictionaryLiteral elements: (String, ModelObject)...) {
        for (id, object) in elements { self[id] = object }
    }

    var count: Int { byID.count }
    var isEmpty: Bool { byID.isEmpty }
    var values: Dictionary<String, ModelObject>.Values { byID.values }

    /// The ids of `model`'s objects.
    func ids(of model: String) -> Set<String> { idsByModel[model] ?? [] }

    func contains(model: String) -> Bool { idsByModel[model]?.isEmpty == false }

    /// The models with an object here (`forget` drops a model whose last one goes).
    var models: Dictionary<String, Set<String>>.Keys { idsByModel.keys }

    subscript(id: String) -> ModelObject? {
        get { byID[id] }
        set {
            if let newValue {
                if let old = byID.updateValue(newValue, forKey: id), old.modelName != newValue.modelName { forget(id, of: old.modelName) }
                idsByModel[newValue.modelName, default: []].insert(id)
            } else {
                removeValue(forKey: id)
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: String) -> ModelObject? {
        guard let old = byID.removeValue(forKey: id) else { return nil }
        forget(id, of: old.modelName)
        return old
    }

    private mutating func forget(_ id: String, of model: String) {
        idsByModel[model]?.remove(id)
        if idsByModel[model]?.isEmpty == true { idsByModel.removeValue(forKey: model) }
    }
}
