extension ObjectContext {
    /// The object for a row when this context already holds it, without reading the store (SwiftData's
    /// `registeredModel(for:)`): nil when it holds none, or the row is deleted in this context.
    package func registeredObject(_ model: String, id: String) -> ModelObject? {
        lock.withLock { loadedObject(model, id: id) }
    }
}
