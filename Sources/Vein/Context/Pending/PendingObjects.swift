/// Objects with a pending change of one kind (changed, or deleted), by key, and the keys of each model's:
/// whether a model has any, and which, is what every fetch asks (`hasPendingChanges(for:)`, the narrowing
/// of its SQL), and it costs what that model has pending, not what the whole context has.
///
/// Keyed by `ObjectKey`, as the identity map is: a delete or a change of a stored object files it by its
/// key's two words, not by hashing its 26-character id twice (once here, once in its model's set).
struct PendingObjects {
    private var byKey: [ObjectKey: ModelObject] = [:]
    private var keysByModel: [String: Set<ObjectKey>] = [:]

    var count: Int { byKey.count }
    var isEmpty: Bool { byKey.isEmpty }
    var values: Dictionary<ObjectKey, ModelObject>.Values { byKey.values }

    /// How many of `model`'s objects are here.
    func count(of model: String) -> Int { keysByModel[model]?.count ?? 0 }

    /// The ids of `model`'s objects, as text.
    func ids(of model: String) -> [String] { keysByModel[model].map { $0.map(\.text) } ?? [] }

    func contains(model: String) -> Bool { keysByModel[model]?.isEmpty == false }

    /// The models with an object here (`forget` drops a model whose last one goes).
    var models: Dictionary<String, Set<ObjectKey>>.Keys { keysByModel.keys }

    /// The object here with id `id`; the id's key is made for the lookup.
    subscript(id: String) -> ModelObject? { byKey[ObjectKey(id)] }

    /// Whether `object` itself (not another object with its id) is here.
    func holds(_ object: ModelObject) -> Bool { byKey[object.key] === object }

    /// Files `object` under its key, in place of any object that had it.
    mutating func insert(_ object: ModelObject) {
        if let old = byKey.updateValue(object, forKey: object.key), old.modelName != object.modelName { forget(object.key, of: old.modelName) }
        keysByModel[object.modelName, default: []].insert(object.key)
    }

    /// Removes `object` when it is the one here under its key.
    mutating func remove(_ object: ModelObject) {
        guard holds(object) else { return }
        removeValue(forKey: object.key)
    }

    @discardableResult
    mutating func removeValue(forKey key: ObjectKey) -> ModelObject? {
        guard let old = byKey.removeValue(forKey: key) else { return nil }
        forget(key, of: old.modelName)
        return old
    }

    private mutating func forget(_ key: ObjectKey, of model: String) {
        keysByModel[model]?.remove(key)
        if keysByModel[model]?.isEmpty == true { keysByModel.removeValue(forKey: model) }
    }
}
