/// SwiftData's name for the container's own context.
extension ModelContainer {
    /// The container's context, `context` (SwiftData's main context; Vein's is usable from any thread, its
    /// operations serialised by a lock).
    public var mainContext: ModelContext { context }
}
