import Foundation
import VeinCore

/// The article's `Database`: what a view model needs from storage, and nothing about the store.
protocol Database {
    associatedtype T
    func create(_ item: T) throws
    func create(_ items: [T]) throws
    func read(predicate: Predicate<T>?, sortDescriptors: SortDescriptor<T>...) throws -> [T]
    func update(_ item: T) throws
    func delete(_ item: T) throws
}

/// A `Database` over a container. Every call makes its own context, as the article does: a context is
/// cheap, and one made per call is never shared between threads. The objects `read` returns keep their
/// context alive, so they stay readable after the call returns.
protocol SwiftDatabase: Database where T: PersistentModel {
    var container: ModelContainer { get }
}

extension SwiftDatabase {
    func create(_ item: T) throws {
        let context = ModelContext(container)
        context.insert(item)
        try context.save()
    }

    /// One save for all: one transaction, one write to disk.
    func create(_ items: [T]) throws {
        let context = ModelContext(container)
        for item in items {
            context.insert(item)
        }
        try context.save()
    }

    func read(predicate: Predicate<T>?, sortDescriptors: SortDescriptor<T>...) throws -> [T] {
        let context = ModelContext(container)
        let fetchDescriptor = FetchDescriptor(predicate: predicate, sortBy: sortDescriptors)
        return try context.fetch(fetchDescriptor)
    }

    /// Insert is an upsert: an item whose unique value is stored replaces that row.
    func update(_ item: T) throws {
        try create(item)
    }

    func delete(_ item: T) throws {
        let context = ModelContext(container)
        let idToDelete = item.persistentModelID
        try context.delete(model: T.self, where: #Predicate { item in
            item.persistentModelID == idToDelete
        })
        try context.save()
    }
}
