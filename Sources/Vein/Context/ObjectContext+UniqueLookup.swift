extension ObjectContext {
    /// The stored row whose unique constraint `fields` (one `unique` field, or a compound constraint's
    /// fields) holds `values`, as this context has it: nil when no row does, or when this context deleted
    /// the row or moved one of the values away in an unsaved change. One read through the constraint's
    /// UNIQUE index and a cached statement, so an insert that looks for its row (VeinCore's insert of a
    /// model with unique fields) costs little more than one that does not.
    package func storedObject(_ model: String, unique fields: [String], equal values: [Value]) throws -> ModelObject? {
        try lock.withLock {
            let layout = try layout(model)
            let columns = try fields.map { field in
                guard let i = layout.index[field] else {
                    throw ContextError.unknownField(model: model, field: field, suggestion: Suggestion.closest(to: field, in: layout.columns))
                }
                return i
            }
            // Callers (upsert, insert) pass the model's constraints only: the lookup goes through their index.
            precondition(fields.count == 1 ? layout.fieldSchemas[columns[0]]?.isUnique == true
                         : layout.model.uniquenessConstraints.contains { Set($0) == Set(fields) },
                         "\(model) has no unique constraint on \(fields)")
            let wanted = try zip(values, columns).map { try checked($0, layout: layout, column: $1) }
            let condition = columns.map { "\(layout.table).\(SQL.quoteIdentifier(layout.columns[$0])) = ?" }.joined(separator: " AND ")
            let statement = try database.cachedStatement("SELECT \(layout.selectList) FROM \(layout.table) WHERE \(condition) LIMIT 1")
            defer { statement.reset() }
            for (n, (value, i)) in zip(wanted, columns).enumerated() { try layout.codecs[i]!.bind(value, to: statement, at: n + 1) }
            guard try statement.step() else { return nil }
            let object = try materialize(statement, layout: layout)
            guard object.state != .deleted,
                  try zip(wanted, columns).allSatisfy({ value, i in try self.value(of: object, layout.columns[i], column: i) == value })
            else { return nil }
            return object
        }
    }
}
