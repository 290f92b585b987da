/// A field value given before its object is in a context (VeinCore's pending values), with the column
/// its model's declaration puts the field at: the insert tries that column before searching the layout
/// for the name (`ModelLayout.columnIndex(_:hint:)`), -1 when the giver does not know it.
package struct PendingValue: Sendable {
    package var key: String
    package var column: Int
    package var value: Value

    package init(key: String, column: Int, value: Value) {
        self.key = key
        self.column = column
        self.value = value
    }
}
