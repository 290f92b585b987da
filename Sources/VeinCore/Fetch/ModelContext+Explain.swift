import Vein

extension ModelContext {
    /// What `fetch(descriptor)` would do, for a person asking why a fetch is slow: the SQL it runs with its
    /// arguments, SQLite's query plan for it, and what is left to memory (a predicate or sort key the
    /// engine's SQL cannot decide as Foundation does, unsaved changes merged in). Nothing is fetched.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> FetchExplanation {
        try checkSchema()
        let plan = try TypedFetchPlan(descriptor, context: engine)
        return try engine.explain(plan.engine).adding(inMemory: plan.inMemory)
    }

    /// Stops the statement running on this context's connection (a fetch a person gave up on); the call
    /// running it throws SQLite's "interrupted" error, and the context stays usable. Safe from another
    /// thread or a signal handler; with nothing running it does nothing.
    public func interrupt() {
        engine.interrupt()
    }
}
