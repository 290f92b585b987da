import Foundation

/// One model's change in a transaction (SwiftData's `HistoryChange`). Match the typed change with
/// `case .insert(let insert as DefaultHistoryInsert<Trip>)`.
public enum HistoryChange: Sendable {
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)

    /// The row the change is about.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let c): return c.changedPersistentIdentifier
        case .update(let c): return c.changedPersistentIdentifier
        case .delete(let c): return c.changedPersistentIdentifier
        }
    }
}

public protocol HistoryInsert: Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
}

public protocol HistoryUpdate: Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The properties the transaction changed.
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

public protocol HistoryDelete: Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
}

public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    public let changedPersistentIdentifier: PersistentIdentifier
}

public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, @unchecked Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    /// Key paths are immutable; `PartialKeyPath` is not marked `Sendable` by the standard library.
    public let updatedAttributes: [PartialKeyPath<Model>]
}

public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    public let changedPersistentIdentifier: PersistentIdentifier
}
