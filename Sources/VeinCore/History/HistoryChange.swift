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
    /// The values of the deleted row's fields marked `@Attribute(.preserveValueOnDeletion)`.
    public let tombstone: HistoryTombstone<Model>
}

/// What a delete kept of its row (SwiftData's `HistoryTombstone`): the values of the fields marked
/// `@Attribute(.preserveValueOnDeletion)`, read by key path: `deletion.tombstone[\.name] as? String`.
/// Values are as stored: an enum field's raw value, a `Codable` field's JSON text, a date as a `Date`.
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    /// Key paths are immutable and the values are plain (`String`, `Int`, `Double`, `Bool`, `Date`,
    /// `Data`); neither is marked `Sendable` by the standard library.
    let values: [(keyPath: PartialKeyPath<Model>, value: Any)]

    public subscript<Value>(_ keyPath: KeyPath<Model, Value>) -> Any? {
        values.first { $0.keyPath == keyPath }?.value
    }

    public func makeIterator() -> IndexingIterator<[(keyPath: PartialKeyPath<Model>, value: Any)]> { values.makeIterator() }
}
