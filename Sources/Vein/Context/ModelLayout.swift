/// How one model's rows map to columns, computed once per context: column order, types, which columns
/// a fetch leaves out (lazy fields), and the SQL used for every row.
///
/// Objects store their values in an array in this column order (not a dictionary): fetching 200,000
/// rows should cost one array per row, not eleven hash insertions.
final class ModelLayout: @unchecked Sendable {
    let model: ModelSchema
    /// Every column after `id`: fields, then relationships.
    let columns: [String]
    let index: [String: Int]
    let types: [ValueType]
    let fieldSchemas: [FieldSchema?]
    let relationships: [RelationshipSchema?]
    let isLazy: [Bool]
    /// How a fetch reads each column, decided once: `ValueType` is an indirect enum, and switching on it
    /// for every column of every row costs a retain and release each time.
    let readers: [ColumnReader]
    /// Columns a fetch reads (non-lazy), as indexes into `columns`.
    let fetchedColumns: [Int]
    let table: String
    let selectList: String
    let insertSQL: String

    init(model: ModelSchema) {
        self.model = model
        columns = model.columnNames
        var index: [String: Int] = [:]
        for (i, c) in columns.enumerated() { index[c] = i }
        self.index = index
        let names = model.columnNames
        fieldSchemas = names.map { model.field(named: $0) }
        relationships = names.map { model.relationship(named: $0) }
        types = names.map { name in
            if let f = model.field(named: name) { return ValueType.of(f) }
            let r = model.relationship(named: name)!
            return r.isToMany ? .toMany(r.target) : .optional(.id)
        }
        readers = types.map(ColumnReader.init)
        let lazy = fieldSchemas.map { $0?.isLazy ?? false }
        isLazy = lazy
        let fetched = names.indices.filter { !lazy[$0] }
        fetchedColumns = fetched
        let table = SQL.quoteIdentifier(model.name)
        self.table = table
        selectList = (["\(table).\"id\""] + fetched.map { "\(table).\(SQL.quoteIdentifier(names[$0]))" }).joined(separator: ", ")
        let all = ["\"id\""] + names.map(SQL.quoteIdentifier)
        insertSQL = "INSERT INTO \(table) (\(all.joined(separator: ", "))) VALUES (\(all.map { _ in "?" }.joined(separator: ", ")))"
    }

    /// Cached per layout: `initialValue` runs for every column of every insert.
    private(set) lazy var initialValues: [Value?] = columns.indices.map(computeInitialValue)

    func initialValue(_ i: Int) -> Value? { initialValues[i] }

    /// The value a new object starts with: the default, nil for optionals, empty for to-many.
    private func computeInitialValue(_ i: Int) -> Value? {
        if let field = fieldSchemas[i] {
            if let d = field.defaultValue, let v = try? field.databaseValue(fromJSON: d) { return Value(v, type: types[i]) }
            return field.isOptional ? .null : nil
        }
        return relationships[i]!.isToMany ? .array([]) : .null
    }
}

/// The storage class a fetch reads a column as.
enum ColumnReader {
    case int, double, date, bool, text, other(ValueType)

    init(_ type: ValueType) {
        switch type.unwrapped {
        case .int: self = .int
        case .double: self = .double
        case .date: self = .date
        case .bool: self = .bool
        case .string, .uuid, .json, .id: self = .text
        default: self = .other(type)
        }
    }

    /// Reads one column straight into a `Value` (no intermediate `DatabaseValue` on the hot path).
    func read(_ s: Statement, _ column: Int) -> Value {
        if s.isNull(column) { return .null }
        switch self {
        case .int: return .int(s.int64(column))
        case .double: return .double(s.double(column))
        case .date: return .date(s.double(column))
        case .bool: return .bool(s.int64(column) != 0)
        case .text: return .string(s.string(column))
        case .other(let type): return Value(s.value(column), type: type)
        }
    }
}
