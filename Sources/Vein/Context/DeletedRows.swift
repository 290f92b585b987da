/// The rows a save deleted, by model: its `DeleteSet`, read a model at a time at the first question, inside
/// the save's transaction after `ObjectContext.deleteRows`. The reference check and the held objects'
/// update ask the same one, so a model's deleted ids are read once a save.
struct DeletedRows {
    /// The models with deleted rows (`deleteRows`'s answer); no other model is read.
    let models: Set<String>
    private let database: Database
    private var idsByModel: [String: Set<String>] = [:]

    init(models: Set<String>, database: Database) {
        self.models = models
        self.database = database
    }

    /// The ids of `model`'s deleted rows.
    mutating func ids(of model: String) throws -> Set<String> {
        guard models.contains(model) else { return [] }
        if let known = idsByModel[model] { return known }
        let ids = Set(try database.rows("SELECT \"id\" FROM \(DeleteSet.table) WHERE \"model\" = ?", [.text(model)]).compactMap { $0[0].string })
        idsByModel[model] = ids
        return ids
    }

    /// Whether the save deleted `object`'s row (its id made only for a model with deletes).
    mutating func contains(_ object: ModelObject) throws -> Bool {
        models.contains(object.modelName) ? try ids(of: object.modelName).contains(object.id) : false
    }
}
