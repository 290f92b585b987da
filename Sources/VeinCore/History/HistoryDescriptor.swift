import Foundation

/// Which transactions of a store's history `ModelContext.fetchHistory` returns (SwiftData's
/// `HistoryDescriptor`): those its predicate accepts, in token order unless sorted, at most `fetchLimit`.
/// The predicate is Foundation's `#Predicate`, evaluated on each transaction, as in
/// `#Predicate { $0.token > lastToken && $0.author == "widget" }` (docs/app-guide.md#history).
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: Sendable {
    public var predicate: Predicate<TransactionType>?
    public var sortBy: [SortDescriptor<TransactionType>]
    public var fetchLimit: Int?

    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        self.sortBy = []
    }

    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>]) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
