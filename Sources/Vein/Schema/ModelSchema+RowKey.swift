extension ModelSchema {
    /// Whether `name`, in an expression or a sort key, means the row key: `_id` always, and `id` for a
    /// model with no field or relationship of that name, so scripts written before a model could have
    /// its own `id` keep working.
    package func namesRowKey(_ name: String) -> Bool {
        name == StoreFormat.current.keyColumn || (name == "id" && field(named: name) == nil && relationship(named: name) == nil)
    }
}
