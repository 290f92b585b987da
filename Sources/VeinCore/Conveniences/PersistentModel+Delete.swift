extension PersistentModel {
    /// Deletes the object in its context (`context.delete(post)` without naming the context), with its
    /// relationships' delete rules; `save` writes it. An instance never inserted has no row: an error.
    public func delete() throws {
        guard let object = _$backing.object else { throw ModelConvenienceError.notInAContext(model: Self.modelName, method: "delete()") }
        try object.context.delete(object)
    }
}
