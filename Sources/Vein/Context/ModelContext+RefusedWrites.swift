extension ModelContext {
    /// Records a write to a deleted or detached object made where the error cannot be thrown (a typed
    /// model's property setter): the write is not made, and the next `save` reports it.
    package func noteRefusedWrite(_ error: ContextError) {
        lock.withLock { refusedWrites.append(error) }
    }

    /// Throws the first refused write, once: the save that reports it writes nothing, and the context is
    /// left as it was (the refused write never became a change), so the next save can succeed.
    func throwRefusedWrites() throws {
        guard let first = refusedWrites.first else { return }
        refusedWrites = []
        throw first
    }
}
