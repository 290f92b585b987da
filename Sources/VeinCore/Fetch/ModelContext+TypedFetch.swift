import Foundation
import Vein

extension ModelContext {
    /// The objects `descriptor` selects, in its order (ties in creation order), within its window.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        try checkSchema()
        let plan = try TypedFetchPlan(descriptor, context: engine)
        return try plan.finish(try engine.fetch(plan.engine))
    }

    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try checkSchema()
        let plan = try TypedFetchPlan(descriptor, context: engine)
        if plan.isAllInEngine { return try engine.fetchCount(plan.engine) }
        return try plan.finish(try engine.fetch(plan.engine)).count
    }

    /// The identifiers of the objects `descriptor` selects, in its order.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        try fetchKeys(descriptor).map { PersistentIdentifier(entityName: T.modelName, key: $0) }
    }

    /// The row keys (ULIDs) of the objects `descriptor` selects, in its order.
    func fetchKeys<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [String] {
        try checkSchema()
        let plan = try TypedFetchPlan(descriptor, context: engine)
        if plan.isAllInEngine { return try engine.fetchIdentifiers(plan.engine) }
        return try plan.finish(try engine.fetch(plan.engine)).map(\._$backing.key)
    }

    /// Whether `predicate` runs through the engine's SQL compiler (true) or Foundation's `evaluate` in
    /// memory (false), for tests and for a person asking why a fetch is slow.
    public func translates<T: PersistentModel>(_ predicate: Predicate<T>) -> Bool {
        PredicateTranslation.typedExpression(predicate, manifest: engine.manifest) != nil
    }
}
