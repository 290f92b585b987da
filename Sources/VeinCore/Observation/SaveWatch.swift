import Vein

/// A live query's change source within the process: the saves, from any context on the same store file,
/// that write one of `models`, and the rollbacks of its own context that discard changes of them
/// (`StoreChangeCenter`). Released, it stops watching.
final class SaveWatch: Sendable {
    /// The models whose saves and rollbacks concern the query: its own and what it reaches.
    let models: Set<String>
    private let saves: StoreObservation?
    private let rollbacks: StoreObservation

    /// `onSave` runs on the saving thread after the commit; `onRollback` on the thread that rolled back,
    /// before `rollback()` returns.
    init(models: Set<String>, context: ObjectContext, onSave: @escaping @Sendable () -> Void,
         onRollback: @escaping @Sendable () -> Void) {
        self.models = models
        saves = context.storeRealPath.map { realPath in
            StoreChangeCenter.shared.observe(storeAt: realPath) { change in
                if !change.models.isDisjoint(with: models) { onSave() }
            }
        }
        rollbacks = StoreChangeCenter.shared.observeRollbacks(of: context) { change in
            if !change.models.isDisjoint(with: models) { onRollback() }
        }
    }

    deinit {
        saves?.cancel()
        rollbacks.cancel()
    }

    /// `model` and every model reachable from it through relationships, in the manifest.
    static func reachableModels(from model: String, in manifest: SchemaManifest) -> Set<String> {
        var reached: Set<String> = [model]
        var next = [model]
        while let name = next.popLast() {
            for relationship in manifest.model(named: name)?.relationships ?? [] where reached.insert(relationship.target).inserted {
                next.append(relationship.target)
            }
        }
        return reached
    }
}
