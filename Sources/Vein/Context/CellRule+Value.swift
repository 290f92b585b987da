import CSQLCipher

/// Reading a checked cell as the context's `Value` (the value type lives with the predicate language, above
/// the store layer that owns the rules).
extension CellRule {
    /// The cell as its type's value; throws rather than read a cell of another type.
    func read(_ s: Statement, _ column: Int) throws(CellMismatch) -> Value {
        // The storage class read once: this runs for every column of every fetched row.
        let storage = s.storageClass(column)
        if storage == SQLITE_NULL { return .null }
        if let mismatch = mismatch(s, column, storage: storage) { throw mismatch }
        switch kind {
        case .int, .enumInteger: return .int(s.int64(column))
        case .bool: return .bool(s.int64(column) != 0)
        case .double: return .double(s.double(column))
        case .date: return .date(s.double(column))
        case .data: return .data(s.data(column))
        case .string, .uuid, .json, .enumText, .toOne: return .string(s.string(column))
        }
    }
}
