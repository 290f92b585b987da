extension ModelContext {
    /// The stored row whose unique `field` holds `value`, as this context has it: nil when no row does,
    /// or when this context deleted the row or moved the value away in an unsaved change. One read
    /// through the field's UNIQUE index and a cached statement, so an insert that looks for its row
    /// (VeinCore's insert of a model with unique fields) costs little more than one that does not.
    package func storedObject(_ model: String, uniqueField field: String, equals value: Value) throws -> ModelObject? {
        try lock.withLock {
            let layout = try layout(model)
            guard let i = layout.index[field] else {
                throw ContextError.unknownField(model: model, field: field, suggestion: Suggestion.closest(to: field, in: layout.columns))
            }
            // Callers (upsert, insert) pass the model's unique fields only.
            guard let sql = layout.uniqueLookupSQL[i] else { preconditionFailure("\(model).\(field) is not a unique field") }
            let wanted = try checked(value, layout: layout, column: i)
            let statement = try database.cachedStatement(sql)
            defer { statement.reset() }
            try layout.codecs[i]!.bind(wanted, to: statement, at: 1)
            guard try statement.step() else { return nil }
            let object = try materialize(statement, layout: layout)
            guard object.state != .deleted, try self.value(of: object, field, column: i) == wanted else { return nil }
            return object
        }
    }
}
