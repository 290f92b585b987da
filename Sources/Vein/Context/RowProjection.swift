/// Which columns of a model's rows a fetch reads: by default all but lazy fields and to-manys; fewer when
/// the fetch names the properties it wants (`ObjectFetch.columnsToFetch`); those the context reads
/// with every row (`ModelLayout.readWithEveryRow`) always. A column left unread is
/// read from the store when first asked for, as a lazy field is.
struct RowProjection {
    /// The columns read, as indexes into the layout's `columns`, in the select list's order (after `id`).
    let fetchedColumns: [Int]
    /// The codecs of `fetchedColumns`, in that order: what a fetch calls for each cell.
    let codecs: [any ValueCodec]
    /// Every other column: the same for every row read through this projection.
    let unfetchedColumns: Set<Int>
    /// `id`, then `fetchedColumns`, qualified by the table.
    let selectList: String

    init(reading fetched: [Int], of names: [String], codecs: [FieldCodec?], table: String) {
        fetchedColumns = fetched
        self.codecs = fetched.map { codecs[$0]!.type }
        unfetchedColumns = Set(names.indices).subtracting(fetched)
        selectList = (["\(table).\(StoreFormat.key)"] + fetched.map { "\(table).\(SQL.quoteIdentifier(names[$0]))" }).joined(separator: ", ")
    }
}
