extension TypedExpression {
    /// `field == value` on the object tested, the value in its stored form (a string in Unicode's
    /// canonical form, as a save stores it): a lookup by a field's value, such as VeinCore's upsert by a
    /// `@Unique` field. A value the field cannot hold is compared as given (and matches nothing).
    package static func fieldEquals(_ field: FieldSchema, _ value: Value) -> TypedExpression {
        let type = ValueType.of(field)
        let stored = (try? field.codec.normalized(value)) ?? value
        return .compare("==", .column(ColumnPath(hop: nil, column: field.name, storedType: type), type), .literal(stored, type))
    }
}
