/// A cell that is not a value of its column's type (see `ValueCodec.mismatch`).
///
/// SQLite stores any value in any column (its types are affinities), so another tool — the sqlite3 shell,
/// a program with a bug — can leave `'abc'` in an int column or `'yesterday'` in a date. Reading such a
/// cell with `sqlite3_column_int64` gives 0 and with `sqlite3_column_double` 1970: a value nobody stored.
/// Vein never reads a cell as something it is not; it refuses the cell, naming it.
struct CellMismatch: Error, Equatable, Sendable {
    /// Stored as another storage class (text in an int column), rather than outside the type's values
    /// (2 in a bool, a lowercase uuid).
    let isWrongStorage: Bool
    let found: String

    func damaged(model: String, field: String, id: String, expected: String) -> DamagedValueError {
        DamagedValueError(model: model, field: field, id: id, expected: expected, found: found)
    }
}

/// A stored value that is not of its field's type: the store was changed outside Vein. Reading it would
/// mean inventing a value (0, 1970), so the read fails instead.
public struct DamagedValueError: Error, Equatable, Sendable {
    public let model: String
    public let field: String
    public let id: String
    /// The field's type (`int`, `date`, `id`).
    public let expected: String
    /// What the cell holds (`text "abc"`).
    public let found: String
}

extension DamagedValueError: CustomStringConvertible {
    public var description: String { "\(model) \(id): \(field) holds \(found), which is not a value of type \(expected)" }
}
