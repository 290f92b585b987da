import Vein

/// Holds an engine context for the instances one fetch made, each of which holds this instead of the
/// context: the context is weakly referenced (by its objects' handle), so every retain and release of it
/// takes the runtime's slow path through its side table. One keeper per fetch keeps that off the rows.
final class ContextKeeper {
    let context: ObjectContext
    init(_ context: ObjectContext) { self.context = context }
}
