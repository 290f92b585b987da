/// How one model's rows map to columns, computed once per context: column order, types, which columns
/// a fetch leaves out (lazy fields), and the SQL used for every row.
///
/// Objects store their values as cells in this column order (not a dictionary): a fetched row costs one
/// block of cells, not a hash insertion per column.
final class ModelLayout: @unchecked Sendable {
    let model: ModelSchema
    /// The context these layouts are computed for (each context makes its own). Its objects reach their
    /// context through their layout: one reference fewer in every object.
    let handle: ContextHandle
    /// Every column after `id`: fields, then relationships.
    let columns: [String]
    /// `columns.count`, one load away for an object's every value read.
    let columnCount: Int
    let index: [String: Int]
    let fieldSchemas: [FieldSchema?]
    let relationships: [RelationshipSchema?]
    /// How each relationship is stored (nil for fields).
    let storage: [RelationshipStorage?]
    let isLazy: [Bool]
    /// Columns every fetch reads with the row, whatever columns it names and lazy or not
    /// (`ObjectContext.init(store:readWithEveryRow:)`).
    let readWithEveryRow: Set<Int>
    /// To-many relationships: no column of their own; read on first access through `storage`.
    let isToMany: [Bool]
    /// To-one relationships whose inverse, if any, is a to-many: a new object linked through one changes
    /// itself and the target's pending link list, and reads nothing (a to-one inverse would take the
    /// target from its previous owner, which may have to be read), so the link cannot fail once its
    /// target is found (`ObjectContext.insert`).
    let linksWithoutReading: [Bool]
    /// Columns written by an insert (all but to-many), as indexes into `columns`.
    let insertedColumns: [Int]
    /// The relationships whose ids a row or a link table holds (`.column`, `.linkTable`; a reverse column
    /// is its to-one side's column): what a save checks for ids naming no row.
    let referenceColumns: [Int]
    /// The to-ones whose target lists its members in order through a position column of the member's row
    /// (`RelationshipStorage.positionColumn`): an insert writes that position after `insertedColumns`
    /// (`LinkPlan`).
    let positionedColumns: [Int]
    /// Each column's codec (a to-one's is `FieldCodec.reference`; nil for a to-many, which has no
    /// column): how a fetch reads and checks it, how a save binds it, how a set value is normalized.
    let codecs: [FieldCodec?]
    /// What a fetch reads of a row by default: every column but to-manys and the lazy fields not in
    /// `readWithEveryRow`.
    let row: RowProjection
    let table: String
    var selectList: String { row.selectList }
    let insertSQL: String
    /// Where each column's cell goes among the change log's value columns of the table
    /// (`LoggedTable.valueColumns`), and its position column's; nil for a to-many, and for a column
    /// without a position column.
    let loggedColumn: [Int?]
    let loggedPositionColumn: [Int?]

    init(model: ModelSchema, manifest: SchemaManifest, handle: ContextHandle, readWithEveryRow: Set<String> = []) {
        self.model = model
        self.handle = handle
        columns = model.columnNames
        columnCount = columns.count
        var index: [String: Int] = [:]
        for (i, c) in columns.enumerated() { index[c] = i }
        self.index = index
        let names = model.columnNames
        fieldSchemas = names.map { model.field(named: $0) }
        relationships = names.map { model.relationship(named: $0) }
        let storage = relationships.map { $0.map { RelationshipStorage(model: model, relationship: $0, in: manifest) } }
        self.storage = storage
        let toMany = relationships.map { $0?.isToMany ?? false }
        isToMany = toMany
        let codecs = names.map { name -> FieldCodec? in
            if let field = model.field(named: name) { return field.codec }
            return model.relationship(named: name)!.isToMany ? nil : .reference
        }
        self.codecs = codecs
        let lazy = fieldSchemas.map { $0?.isLazy ?? false }
        isLazy = lazy
        let table = SQL.quoteIdentifier(model.name)
        self.table = table
        let alwaysRead = Set(names.indices.filter { readWithEveryRow.contains(names[$0]) && !toMany[$0] })
        self.readWithEveryRow = alwaysRead
        let row = RowProjection(reading: names.indices.filter { (!lazy[$0] || alwaysRead.contains($0)) && !toMany[$0] },
                                of: names, codecs: codecs, table: table)
        self.row = row
        let inserted = names.indices.filter { !toMany[$0] }
        insertedColumns = inserted
        let positioned = names.indices.filter { storage[$0]?.kind == .column && storage[$0]?.positionColumn != nil }
        positionedColumns = positioned
        // A to-one's storage has a position column exactly when its inverse is a to-many.
        linksWithoutReading = names.indices.map { i in
            guard let storage = storage[i], storage.kind == .column else { return false }
            return storage.relationship.inverse == nil || storage.positionColumn != nil
        }
        referenceColumns = names.indices.filter { storage[$0].map { $0.kind != .reverseColumn } ?? false }
        let all = ["\(StoreFormat.key)"] + inserted.map { SQL.quoteIdentifier(names[$0]) }
            + positioned.map { SQL.quoteIdentifier(storage[$0]!.positionColumn!) }
        insertSQL = "INSERT INTO \(table) (\(all.joined(separator: ", "))) VALUES (\(SQL.placeholders(all.count)))"
        var stored: [String: Int] = [:]
        for (i, name) in SchemaDDL.storedColumns(model, in: manifest).enumerated() { stored[name] = i }
        loggedColumn = names.indices.map { toMany[$0] ? nil : stored[names[$0]] }
        loggedPositionColumn = names.indices.map { i in storage[i]?.positionColumn.flatMap { stored[$0] } }
    }

    /// The position of column `name`, as `index[name]`. A model of a few columns is searched in order:
    /// short names compare as two machine words, cheaper than hashing the name (a typed accessor looks
    /// a field up by name on every read).
    func columnIndex(_ name: String) -> Int? {
        columns.count <= Self.searchedInOrder ? columns.firstIndex(of: name) : index[name]
    }
    private static let searchedInOrder = 16

    /// `columnIndex(name)`, trying `hint` first: a typed accessor passes the position its model's
    /// declaration gives the field, so a read of a model whose layout matches it costs one comparison of
    /// the name (not a search); a layout of another shape (a store made from another manifest) is
    /// searched as before.
    func columnIndex(_ name: String, hint: Int) -> Int? {
        if hint >= 0, hint < columns.count, columns[hint] == name { return hint }
        return columnIndex(name)
    }

    /// Cached per layout: `initialValue` runs for every column of every insert.
    private(set) lazy var initialValues: [Value?] = columns.indices.map(computeInitialValue)

    func initialValue(_ i: Int) -> Value? { initialValues[i] }

    /// The value a new object starts with: the default, nil for optionals, empty for to-many.
    private func computeInitialValue(_ i: Int) -> Value? {
        if let field = fieldSchemas[i] {
            if let d = field.defaultValue, let v = try? codecs[i]!.value(fromJSON: d) { return v }
            return field.isOptional ? .null : nil
        }
        return relationships[i]!.isToMany ? .array([]) : .null
    }

    /// Column `i` of the current row, checked against its type; a cell another tool left with a value
    /// of another type is an error naming model, field and row (the row's id made only then).
    func read(_ statement: Statement, _ column: Int, as i: Int, id: @autoclosure () -> String) throws(DamagedValueError) -> Value {
        do {
            return try codecs[i]!.read(statement, column)
        } catch {
            throw damaged(error, column: i, id: id())
        }
    }

    /// The projection reading `names` (fields and to-ones; a to-many has no column and is skipped) and
    /// no other column but `readWithEveryRow`: `ObjectFetch.columnsToFetch`.
    func projection(reading names: [String]) throws -> RowProjection {
        var wanted = readWithEveryRow
        for name in names {
            guard let i = index[name] else {
                throw ContextError.unknownField(model: model.name, field: name, suggestion: Suggestion.closest(to: name, in: columns))
            }
            if !isToMany[i] { wanted.insert(i) }
        }
        return RowProjection(reading: wanted.sorted(), of: columns, codecs: codecs, table: table)
    }

    /// The current row of a statement selecting `projection.selectList`, as an array: each column it reads
    /// through its codec (the others `.null`). The array is made at its size and filled in place (a copy
    /// of a shared row of `.null`s would be a second array per row). A fetch writes straight into a new
    /// object's cells instead (`readRow(_:key:projection:into:)`).
    func readRow(_ statement: Statement, key: ObjectKey, projection: RowProjection) throws(DamagedValueError) -> [Value] {
        // Made in place, an empty array would write into the standard library's shared empty storage.
        guard !columns.isEmpty else { return [] }
        var failure: DamagedValueError?
        let values = [Value](unsafeUninitializedCapacity: columns.count) { row, initialized in
            row.initialize(repeating: .null)
            initialized = row.count
            do throws(DamagedValueError) { try readRow(statement, key: key, projection: projection, into: row) } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return values
    }

    /// `readRow`, written into `row` (one cell per column, initialized): the columns `projection` leaves
    /// out keep what they hold.
    func readRow(_ statement: Statement, key: ObjectKey, projection: RowProjection,
                 into row: UnsafeMutableBufferPointer<Value>) throws(DamagedValueError) {
        let fetchedColumns = projection.fetchedColumns, fetchCodecs = projection.codecs
        for n in fetchCodecs.indices {
            let i = fetchedColumns[n]
            do throws(CellMismatch) {
                row[i] = try fetchCodecs[n].read(statement, n + 1)
            } catch {
                throw damaged(error, column: i, id: key.text)
            }
        }
    }

    func damaged(_ mismatch: CellMismatch, column i: Int, id: String) -> DamagedValueError {
        mismatch.damaged(model: model.name, field: columns[i], id: id, expected: codecs[i]!.typeName)
    }
}
